// `npm ci` when node_modules is missing or older than package-lock.json: the demo and the test runner
// start on a fresh clone. Only Node built-ins here, as it runs before anything is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repo's root, and a file's modification time (0 when missing): also what build.mjs compares. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
export const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

/** Installs the locked dependencies unless node_modules is current; exits with npm's status on failure. */
export function installIfStale({ log = console.log } = {}) {
  // npm writes node_modules/.package-lock.json last, when an install completed.
  if (mtime(path.join(root, 'package-lock.json')) <= mtime(path.join(root, 'node_modules/.package-lock.json'))) return;
  log('→ installing dependencies (npm ci)');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`\n✗ npm ci failed (${r.signal ?? `exit code ${r.status}`})`);
    process.exit(r.status ?? 1);
  }
}
