// The Chromium the browser tests drive, looked up in this order: CHROMIUM_PATH, Debian's
// /usr/bin/chromium, Playwright's own download (`npx playwright install chromium`). playwright.config.ts
// launches what findChromium answers; the test runners call ensureChromium first, which installs
// Debian's package when it can (root with apt-get) and otherwise stops with what to install.
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { aptInstall, canAptInstall } from './apt.mjs';

export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Where a Chromium is, and which rule found it; null when there is none. Throws when CHROMIUM_PATH names nothing. */
export function findChromium({ env = process.env, exists = existsSync, playwrightPath = () => chromium.executablePath() } = {}) {
  if (env.CHROMIUM_PATH) {
    // A path set on purpose is never silently replaced by another browser.
    if (!exists(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} does not exist: point it at a Chromium or unset it`);
    return { path: env.CHROMIUM_PATH, from: 'CHROMIUM_PATH' };
  }
  if (exists(DEBIAN_CHROMIUM)) return { path: DEBIAN_CHROMIUM, from: 'debian' };
  const downloaded = playwrightPath();
  if (downloaded && exists(downloaded)) return { path: downloaded, from: 'playwright' };
  return null;
}

/** A Chromium's path, installing Debian's when none is found and this runs as root with apt-get; exits with one line otherwise. */
export function ensureChromium({ log = console.log } = {}) {
  try {
    const found = findChromium();
    if (found) return found.path;
    if (canAptInstall()) {
      log("→ no Chromium found: installing Debian's (apt-get install chromium)");
      aptInstall('chromium');
      const installed = findChromium();
      if (installed) return installed.path;
    }
    throw new Error(
      'no Chromium for the browser tests: install one (`apt-get install chromium`, or `npx playwright install chromium`), set CHROMIUM_PATH to one, or set TRIAGE_SKIP_E2E=1 to skip them',
    );
  } catch (e) {
    console.error(`✗ ${e.message}`);
    process.exit(1);
  }
}
