// Export of 1,000,000 dead letters, streamed with flat memory: GET /api/v1/dead-letters/export called
// as Next calls it (the route handler with a Request and a personal API token, in process), the body
// read to the end and thrown away while RSS is sampled. The peak RSS delta of a 100,000-row export is
// the baseline: flat memory means the 10× larger export needs about as much. Rows come from generate_series
// (test/bench/million-dead-letters.ts). Runs in a child process with its own database.
//   npx tsx test/bench/run.ts export
import type { BenchResult } from './run';
import { measureWhenFlagged, runBenchChild } from './support';
import { GET } from '@/app/api/v1/dead-letters/export/route';
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser } from '@/lib/admin/users';
import { SYSTEM } from '@/lib/auth';
import { pg } from '@/lib/db';
import { MILLION, seedMillion } from './million-dead-letters';

const CHILD_FLAG = '--export-bench-child';

interface Measured {
  name: string;
  rows: number;
  seconds: number;
  megabytes: number;
  peakRssDeltaMb: number;
}

async function child(): Promise<[Measured, Measured, Measured]> {
  const log = (m: string) => process.stderr.write(`[export bench] ${m}\n`);
  const gc = (globalThis as { gc?: () => void }).gc;

  const t0 = performance.now();
  await seedMillion(pg());
  log(`seeded ${MILLION} dead letters in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await createUser(SYSTEM, { email: 'admin@bench.local', role: 'admin' });
  const { token } = await createPersonalToken(SYSTEM, 'admin@bench.local');

  async function exportOnce(name: string, query: string): Promise<Measured> {
    gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const t = performance.now();
    const res = await GET(new Request(`http://bench.local/api/v1/dead-letters/export?${query}`, { headers: { authorization: `Bearer ${token}` } }), {
      params: Promise.resolve({}),
    });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    const reader = res.body.getReader();
    let bytes = 0;
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) lines++;
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    clearInterval(sampler);
    const seconds = (performance.now() - t) / 1000;
    const rows = query.includes('csv') ? lines - 1 : lines;
    log(`${name}: ${rows} rows, ${(bytes / 1e6).toFixed(0)} MB in ${seconds.toFixed(1)} s`);
    return { name, rows, seconds, megabytes: bytes / 1e6, peakRssDeltaMb: (peak - base) / 1024 / 1024 };
  }

  // 100,000 rows: the newest 100,000 (dead in the last ~33 hours of the generated spread). A small
  // export first warms the code paths, so the baseline measures the stream, not the first call.
  const since = new Date(Date.now() - 100_000 * 1200).toISOString();
  await exportOnce('warm-up', `format=csv&from=${new Date(Date.now() - 5_000 * 1200).toISOString()}`);
  return [
    await exportOnce('ndjson, 100,000 rows', `format=ndjson&from=${since}`),
    await exportOnce('ndjson, 1,000,000 rows', 'format=ndjson'),
    await exportOnce('csv, 1,000,000 rows', 'format=csv'),
  ];
}

export async function run(): Promise<BenchResult[]> {
  const [small, nd, csv] = await runBenchChild<[Measured, Measured, Measured]>('export', import.meta.url, CHILD_FLAG, {
    nodeArgs: ['--expose-gc'],
    timeoutMs: 300_000,
  });
  const results: BenchResult[] = [];
  for (const m of [nd, csv]) {
    results.push({ name: `export ${m.name} (${m.megabytes.toFixed(0)} MB): throughput`, value: Math.round(m.rows / m.seconds), unit: 'rows/s' });
    results.push({
      name: `export ${m.name}: peak RSS delta while streaming`,
      value: Number(m.peakRssDeltaMb.toFixed(1)),
      unit: 'MB',
      baseline: { name: `${small.name} (${small.megabytes.toFixed(0)} MB)`, value: Number(small.peakRssDeltaMb.toFixed(1)) },
      // Flat: ten times the rows, about the same memory (growing with the data would be 10×).
      target: '≤ 2× the 100,000-row export (flat; linear growth would be 10×)',
      met: m.peakRssDeltaMb <= 2 * small.peakRssDeltaMb && m.rows === 1_000_000,
    });
  }
  return results;
}

measureWhenFlagged(CHILD_FLAG, child);
