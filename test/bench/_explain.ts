import postgres from 'postgres';
import { refreshAgeStats } from '@/lib/sla/age-stats';
const captured: { q: string; p: unknown[] }[] = [];
const sql = postgres(process.env.DATABASE_URL!, { debug: (_c, q, p) => captured.push({ q, p: p as unknown[] }) });
await refreshAgeStats(new Date(), sql);
const big = captured.find((c) => c.q.includes('INSERT INTO source_stats'))!;
const plan = await sql.begin(async (tx) => {
  await tx`SET LOCAL jit = off`;
  return tx.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${big.q}`, big.p as never[]);
});
console.log(plan.map((r) => (r as Record<string, string>)['QUERY PLAN']).join('\n'));
await sql.end();
