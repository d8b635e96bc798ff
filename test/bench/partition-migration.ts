// Measures the partitioning migration (prisma/migrations/20261201200000_partition_dead_letters) on a
// populated, unpartitioned table: a fresh database gets every migration before it, 1,000,000 dead
// letters (million-dead-letters.ts), then the migration, timed, while a second session watches which
// locks it holds and a third keeps reading the table (how long a reader waits: the app's downtime).
// `npx tsx test/bench/partition-migration.ts` (not part of `npm run bench`: it builds its own database).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { MILLION, seedMillion } from './million-dead-letters';

const MIGRATION = '20261201200000_partition_dead_letters';
const dir = join(import.meta.dirname, '../../prisma/migrations');
const base = process.env.BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432';
const name = `triage_partition_bench_${process.pid}`;

async function main(): Promise<void> {
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const sql = postgres(`${base}/${name}`, { max: 1, onnotice: () => {} });
  const watcher = postgres(`${base}/${name}`, { max: 1, onnotice: () => {} });
  const reader = postgres(`${base}/${name}`, { max: 1, onnotice: () => {} });
  try {
    const migrations = readdirSync(dir)
      .filter((d) => /^\d{14}_/.test(d))
      .sort();
    for (const m of migrations.slice(0, migrations.indexOf(MIGRATION))) await sql.unsafe(readFileSync(join(dir, m, 'migration.sql'), 'utf8'));
    let t = performance.now();
    await seedMillion(sql);
    console.log(`seeded ${MILLION} rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const pid = (await sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
    const locks = new Map<string, string>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const rows = await watcher<{ rel: string | null; mode: string }[]>`
          SELECT c.relname AS rel, l.mode FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation
          WHERE l.pid = ${pid} AND l.locktype = 'relation' AND l.granted`;
        for (const r of rows) if (r.rel && !r.rel.startsWith('pg_')) locks.set(`${r.rel} ${r.mode}`, r.mode);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    let longestRead = 0;
    const read = (async () => {
      while (watching) {
        const s = performance.now();
        await reader`SELECT id FROM dead_letters WHERE status = 'open' ORDER BY dead_at DESC, id DESC LIMIT 50`;
        longestRead = Math.max(longestRead, performance.now() - s);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    t = performance.now();
    await sql.unsafe(readFileSync(join(dir, MIGRATION, 'migration.sql'), 'utf8'));
    const took = (performance.now() - t) / 1000;
    watching = false;
    await Promise.all([watch, read]);
    console.log(`migration on ${MILLION} rows: ${took.toFixed(1)} s; the longest read of the list waited ${(longestRead / 1000).toFixed(1)} s`);
    const strongest = [...locks.keys()].filter((k) => /AccessExclusive|ShareRowExclusive|Exclusive/.test(k)).sort();
    console.log(`locks held (relation mode): ${strongest.join('; ')}`);
    const parts = await sql<{ rel: string; bound: string; n: string }[]>`
      SELECT c.relname AS rel, pg_get_expr(c.relpartbound, c.oid) AS bound, c.reltuples::bigint::text AS n
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'dead_letters'::regclass ORDER BY 1`;
    for (const p of parts) console.log(`  ${p.rel}: ${p.bound}`);
    const [counts] = await sql<
      { rows: string; keys: string }[]
    >`SELECT (SELECT count(*) FROM dead_letters)::text AS rows, (SELECT count(*) FROM dead_letter_keys)::text AS keys`;
    console.log(
      `rows ${counts!.rows}, keys ${counts!.keys}; load average ${(await import('node:os'))
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await Promise.all([sql.end(), watcher.end(), reader.end()]);
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
