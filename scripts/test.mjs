// `npm test`: every test, on real services. Unit and integration (vitest, fresh database per run),
// then browser tests (Playwright on Debian chromium) against a production build of the app.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { prisma } from './lib/database.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
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
  step('browser (next build + playwright)', process.execPath, ['scripts/e2e.mjs']);
}

console.log('\n── summary ──');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds}s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`\nsteps: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
