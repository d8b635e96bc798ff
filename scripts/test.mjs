// `npm test`: every test, on real services, from a fresh clone on. Installs dependencies when stale
// and finds (or installs) a Chromium first, then typecheck and the copy-paste check (npm run lint),
// then unit and integration (vitest, fresh database per run), then browser tests (Playwright)
// against a production build of the app.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { installIfStale } from './lib/dependencies.mjs';
import { failedTests, printSlowest, REPORT_DIR } from './lib/slowest.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const e2e = process.env.TRIAGE_SKIP_E2E !== '1';
// Only Node built-ins are imported above: node_modules may not exist yet.
installIfStale();
// Before minutes of vitest: a missing browser is said at once.
if (e2e) (await import('./lib/chromium.mjs')).ensureChromium();
// The Sidekiq connector's tests run a real Sidekiq.
(await import('./lib/sidekiq.mjs')).ensureSidekiq();
const { prisma } = await import('./lib/database.mjs');
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
const typechecked = step('typecheck', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit']);
// Biome (biome.jsonc): the linter, and the formatter's check (a file it would change fails).
step('lint + format (biome)', process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings', '.']);
step('lint (copy-paste)', process.execPath, ['scripts/lint-duplicates.mjs']);
// A report left by an earlier run must not be read as this run's.
rmSync(REPORT_DIR, { recursive: true, force: true });
mkdirSync(REPORT_DIR, { recursive: true });
step('unit + integration (vitest)', process.execPath, [
  'node_modules/vitest/vitest.mjs',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${REPORT_DIR}/vitest.json`,
]);
printSlowest('vitest', `${REPORT_DIR}/vitest.json`);

if (e2e) {
  // Types checked above: the build skips its own pass over the same files (next.config.ts).
  step('browser (next build + playwright)', process.execPath, ['scripts/e2e.mjs'], {
    TRIAGE_E2E_JSON: `${REPORT_DIR}/playwright.json`,
    ...(typechecked ? { TRIAGE_TYPECHECKED: '1' } : {}),
  });
  printSlowest('playwright', `${REPORT_DIR}/playwright.json`);
}

const failures = [...failedTests('vitest', `${REPORT_DIR}/vitest.json`), ...(e2e ? failedTests('playwright', `${REPORT_DIR}/playwright.json`) : [])];
if (failures.length > 0) {
  console.log('\n── failed tests ──');
  for (const f of failures) console.log(f);
}

console.log('\n── summary ──');
for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.seconds}s)`);
const failed = results.filter((r) => !r.ok).length;
console.log(`\nsteps: ${results.length - failed} passed, ${failed} failed, on Node ${process.version} in ${((Date.now() - started) / 60_000).toFixed(1)} min`);
process.exit(failed ? 1 : 0);
