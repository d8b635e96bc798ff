// The maintenance cycle's parts at storm size, timed one by one (the target: a cycle ≤ 2 s while
// millions of dead letters are open). Its own database, named by the argument, seeded once:
//   npx tsx test/bench/maintenance-cycle.ts seed postgresql://localhost:5432/triage_maint_cycle 2500000
//   npx tsx test/bench/maintenance-cycle.ts measure postgresql://localhost:5432/triage_maint_cycle
//   npx tsx test/bench/maintenance-cycle.ts drop postgresql://localhost:5432/triage_maint_cycle
// Seed: 2 ingest sources, ROWS open dead letters over the last 4 minutes (~ROWS/4 a minute bucket,
// as the storm's). Measure: each part of a cycle, then the same after 20,000 more rows land in the
// current minute (what the next cycle sees during the storm).
import { dropDatabase, ensureDatabase, migrate } from '../../scripts/lib/database.mjs';
import { dropDeadLetterIndexes } from './support';

const [mode, url, rowsArg] = process.argv.slice(2);
if (!mode || !url) throw new Error('usage: maintenance-cycle.ts seed|measure|drop URL [ROWS]');
process.env.DATABASE_URL = url;
const log = (m: string) => process.stderr.write(`[cycle] ${m}\n`);

async function time<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const r = await fn();
  log(`${name}: ${(performance.now() - t).toFixed(0)} ms`);
  return r;
}

async function addRows(sql: import('postgres').Sql, n: number, tag: string) {
  // A storm batch: written as the ingest path does (one statement per batch), now.
  await sql.unsafe(`
    INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, receive_count, dead_at, payload, payload_size,
                              payload_sha256, content_type, headers, fingerprint, status, expires_at)
    SELECT s.id, '${tag}-' || g, 'MaxReceives', 'StormError' || (g % 40), 'step failed for order ' || g, 3,
      now() - make_interval(secs => (g % 1000) * 0.01), convert_to('{"o":' || g || '}', 'UTF8'), 10, md5(g::text) || md5(g::text),
      'application/json', '{}', 'fp' || (g % 40), 'open', now() + interval '14 days'
    FROM generate_series(1, ${n}) g CROSS JOIN LATERAL (SELECT id FROM sources WHERE name = 'storm-' || (g % 2)) s`);
}

if (mode === 'drop') {
  await dropDatabase(url);
} else if (mode === 'seed') {
  const rows = Number(rowsArg ?? 2_500_000);
  await dropDatabase(url);
  await ensureDatabase(url);
  migrate(url);
  const { pg, closeDb } = await import('@/lib/db');
  const sql = pg();
  await sql`INSERT INTO teams (id, name) VALUES (gen_random_uuid(), 'storm')`;
  await sql`INSERT INTO sources (id, name, team_id, kind, updated_at) SELECT gen_random_uuid(), 'storm-' || i, (SELECT id FROM teams), 'ingest', now() FROM generate_series(0, 1) i`;
  const indexes = await dropDeadLetterIndexes(sql);
  await time(`seed ${rows}`, () =>
    sql.unsafe(`
    INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, receive_count, dead_at, payload, payload_size,
                              payload_sha256, content_type, headers, fingerprint, status, expires_at)
    SELECT s.id, 'm-' || g, 'MaxReceives', 'StormError' || (g % 40), 'step failed for order ' || g, 3,
      now() - make_interval(secs => (g::bigint * 7919 % 240000) * 0.001), convert_to('{"o":' || g || '}', 'UTF8'), 10, md5(g::text) || md5(g::text),
      'application/json', '{}', 'fp' || (g % 40), 'open', now() + interval '14 days'
    FROM generate_series(1, ${rows}) g CROSS JOIN LATERAL (SELECT id FROM sources WHERE name = 'storm-' || (g % 2)) s`),
  );
  await sql.unsafe(`SET maintenance_work_mem = '256MB'`);
  for (const i of indexes) await time(`index ${i.name}`, () => sql.unsafe(i.create));
  await sql.unsafe('VACUUM ANALYZE');
  await closeDb();
} else {
  const { pg, closeDb } = await import('@/lib/db');
  const { refreshAgeStats } = await import('@/lib/sla/age-stats');
  const { computeRollups } = await import('@/lib/rollups/compute-rollups');
  const { evaluateAlarms, recentArrivals } = await import('@/lib/alarms/evaluate-alarms');
  const { systemClock } = await import('@/lib/clock');
  const { closeQueues } = await import('@/lib/queue');
  const sql = pg();
  const [{ n }] = (await sql`SELECT count(*)::int AS n FROM dead_letters WHERE status = 'open'`) as unknown as [{ n: number }];
  log(`${n} open dead letters`);
  // The first rollup run after seeding counts everything; the storm's cycles see only new rows.
  await time('rollups (first run, whole table)', () => computeRollups(new Date()));
  await computeRollups(new Date());
  for (let round = 0; round < 3; round++) {
    await addRows(sql, 20_000, `r${round}-${Date.now()}`);
    log(`round ${round}: +20,000 rows in the current minute`);
    await time('  refreshAgeStats', () => refreshAgeStats(new Date()));
    await time('  recentArrivals', () => recentArrivals(new Date()));
    await time('  evaluateAlarms (all, with both above)', () => evaluateAlarms(systemClock));
    await time('  computeRollups', () => computeRollups(new Date()));
  }
  // The rollups must still equal a full recount.
  const [diff] = (await sql`
    SELECT count(*)::int AS n FROM (SELECT source_id, date_trunc('minute', dead_at) AS minute, reason, count(*)::int AS count FROM dead_letters GROUP BY 1, 2, 3) f
    FULL JOIN (SELECT * FROM dead_letter_rollups WHERE count <> 0) r USING (source_id, minute, reason) WHERE f.count IS DISTINCT FROM r.count`) as unknown as [
    { n: number },
  ];
  log(`rollup buckets differing from a full recount: ${diff.n}`);
  await closeQueues();
  await closeDb();
}
