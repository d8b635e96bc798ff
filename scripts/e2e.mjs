// Browser tests against a production build: fresh seeded database, its own Redis prefix, a free
// port, the app and every worker. `node scripts/e2e.mjs [--no-build] [playwright args…]`.
// NEXT_DIST_DIR lets several checkouts' builds sit side by side (default .next).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installIfStale } from './lib/dependencies.mjs';
import { freePort } from './lib/free-port.mjs';

installIfStale();
const { ensureChromium } = await import('./lib/chromium.mjs');
const { dropDatabase, freshTestDatabase } = await import('./lib/database.mjs');
const chromiumPath = ensureChromium();

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const noBuild = args.includes('--no-build');
const pwArgs = args.filter((a) => a !== '--no-build');

const run = (name, argv, env) => {
  console.log(`── ${name}`);
  return spawnSync(process.execPath, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status === 0;
};

const url = await freshTestDatabase(process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage', 'e2e');
const port = await freePort();
const env = {
  DATABASE_URL: url,
  QUEUE_PREFIX: `triage-e2e-${process.pid}-${Date.now().toString(36)}`,
  TRIAGE_STATE_DIR: '.triage/e2e',
  // The app serves in production mode, which refuses to start without real secrets: fresh ones per
  // run, with a checkpoint file of the run's own (its database is the run's own too).
  AUTH_SECRET: randomBytes(32).toString('base64'),
  AUDIT_CHECKPOINT_KEY: randomBytes(32).toString('base64'),
  AUDIT_CHECKPOINT_FILE: `.triage/e2e/audit-checkpoints-${process.pid}-${Date.now().toString(36)}.ndjson`,
  // The security suite varies X-Forwarded-For as a proxy in front of the app would.
  TRUST_PROXY: 'true',
  // Webhook and redrive receivers of the browser tests listen on loopback (lib/outbound).
  OUTBOUND_ALLOWED_HOSTS: '127.0.0.1,localhost,::1',
  // A 30-second rate window: a wave ends, and the demo's redrive rule redrives it, within a test
  // (test/e2e/redrive-rules.spec.ts) instead of five minutes after the last death.
  ALARM_RATE_WINDOW_SECONDS: '30',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
  E2E_PORT: String(port),
  CHROMIUM_PATH: chromiumPath,
  APP_URL: `http://127.0.0.1:${port}`,
  // The whole suite (no files or other arguments given): two workers, in stages (playwright.config.ts).
  TRIAGE_E2E_STAGED: process.env.TRIAGE_E2E_STAGED ?? (pwArgs.some((a) => !a.startsWith('-')) ? '0' : '1'),
};
let ok = false;
try {
  // TRIAGE_DEMO: the browser tests sign in as the demo's users, which the seed makes only for a demo.
  ok =
    run('seed', ['node_modules/tsx/dist/cli.mjs', 'prisma/seed.ts'], { ...env, TRIAGE_DEMO: '1' }) &&
    (noBuild || run('next build', ['node_modules/next/dist/bin/next', 'build'], { ...env, NODE_ENV: 'production' })) &&
    run('playwright', ['node_modules/@playwright/test/cli.js', 'test', ...pwArgs], env);
} finally {
  if (!process.env.TRIAGE_KEEP_TEST_DB) {
    await dropDatabase(url);
    rmSync(path.join(root, env.AUDIT_CHECKPOINT_FILE), { force: true });
  }
}
process.exit(ok ? 0 : 1);
