// The Sidekiq the Sidekiq connector's tests run (test/peers/sidekiq/): Debian's ruby-sidekiq, whose
// /usr/bin/sidekiq brings Ruby with it. The test runner calls ensureSidekiq first, which installs the
// package when it can (root with apt-get) and otherwise stops with what to install.
import { existsSync } from 'node:fs';
import { aptInstall, canAptInstall } from './apt.mjs';

export const DEBIAN_SIDEKIQ = '/usr/bin/sidekiq';

export function ensureSidekiq({ log = console.log, exists = existsSync } = {}) {
  try {
    if (exists(DEBIAN_SIDEKIQ)) return DEBIAN_SIDEKIQ;
    if (canAptInstall()) {
      log("→ no Sidekiq found: installing Debian's (apt-get install ruby-sidekiq)");
      aptInstall('ruby-sidekiq');
      if (exists(DEBIAN_SIDEKIQ)) return DEBIAN_SIDEKIQ;
    }
    throw new Error("no Sidekiq for the Sidekiq connector tests: install Debian's (`apt-get install ruby-sidekiq`, which brings Ruby)");
  } catch (e) {
    console.error(`✗ ${e.message}`);
    process.exit(1);
  }
}
