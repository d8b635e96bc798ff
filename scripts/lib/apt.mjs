// Installing a Debian package for the tests' peers (Chromium, Sidekiq): only as root with apt-get.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const canAptInstall = () => process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');

/** apt-get update, then install `pkg`; throws with the failed step. */
export function aptInstall(pkg) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', pkg],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (${r.signal ?? `exit code ${r.status}`})`);
  }
}
