// `npm test`: every test, on real services. Unit and integration (vitest, fresh database per run),
// then browser tests (Playwright on Debian chromium) against a production build of the app.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dropDatabase, freshTestDatabase, prisma } from './lib/database.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const baseUrl = process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage';
const results = [];

function step(name, cmd, args, env = {}) {
  console.log(`\n── ${name} ──`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = r.status === 0;
  results.push({ name, ok, seconds: ((Date.now() - t0) / 1000).toFixed(1) });
  return ok;
}

prisma(['generate']);
step('typecheck', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit']);
step('unit + integration (vitest)', process.execPath, ['node_modules/vitest/vitest.mjs', 'run']);

if (process.env.TRIAGE_SKIP_E2E !== '1') {
  const e2eUrl = await freshTestDatabase(baseUrl, 'e2e');
  const env = { DATABASE_URL: e2eUrl, QUEUE_PREFIX: `triage-e2e-${process.pid}`, TRIAGE_STATE_DIR: '.triage/e2e', LOG_LEVEL: 'warn' };
  try {
    if (step('build (next build)', process.execPath, ['node_modules/next/dist/bin/next', 'build'], { ...env, NODE_ENV: 'production' })) {
      step('browser (playwright)', process.execPath, ['node_modules/@playwright/test/cli.js', 'test'], env);
    }
  } finally {
    await dropDatabase(e2eUrl);
  }
}

console.log('\n── summary ──');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds}s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`\nsteps: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
