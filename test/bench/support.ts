// The parent side every database bench shares: a fresh migrated database and Redis prefix, the bench
// file re-run as a child process (so its pools, caches and memory figures are its own), the child's
// last stdout line read as its JSON result, the database dropped afterwards.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export async function runBenchChild<T>(
  name: string,
  moduleUrl: string,
  childFlag: string,
  opts: { nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<T> {
  const { dropDatabase, freshTestDatabase } = await import('../../scripts/lib/database.mjs');
  const url = await freshTestDatabase(process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage', `bench_${name}`);
  try {
    const r = spawnSync(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', fileURLToPath(moduleUrl), childFlag], {
      env: { ...process.env, DATABASE_URL: url, QUEUE_PREFIX: `triage-bench-${name}-${process.pid}`, LOG_LEVEL: 'warn', TRIAGE_STATE_DIR: '.triage/bench' },
      encoding: 'utf8',
      // The child's progress lines go straight to the terminal; only its result comes back.
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 << 20,
      timeout: opts.timeoutMs ?? 300_000,
    });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status !== 0 || !/^[[{]/.test(line)) throw new Error(`${name} bench child failed (status ${r.status}, signal ${r.signal})`);
    return JSON.parse(line) as T;
  } finally {
    await dropDatabase(url);
  }
}
