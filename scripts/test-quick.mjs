// `npm run test:quick`: the inner loop. Typecheck, every unit test, and the integration files that
// import what changed (vitest's module graph) since TRIAGE_CHANGED_SINCE (a git revision; default:
// the uncommitted changes). `npm test` stays the whole suite, which CI runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { installIfStale } from './lib/dependencies.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
installIfStale();
const { prisma } = await import('./lib/database.mjs');
prisma(['generate']);

const run = (name, args) => {
  console.log(`\n── ${name} ──`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const since = process.env.TRIAGE_CHANGED_SINCE;
run('typecheck', ['node_modules/typescript/bin/tsc', '--noEmit']);
run('lint + format', ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings', '.']);
run('unit', ['node_modules/vitest/vitest.mjs', 'run', '--project', 'unit']);
run(`integration files touched by the changes${since ? ` since ${since}` : ''}`, [
  'node_modules/vitest/vitest.mjs',
  'run',
  '--project',
  'integration',
  '--project',
  'integration-serial',
  since ? `--changed=${since}` : '--changed',
  '--passWithNoTests',
]);
