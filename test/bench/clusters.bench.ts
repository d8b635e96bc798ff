// The cluster list at 1,000,000 dead letters (target: p95 ≤ 100 ms server time), because counts and
// hourly counts are kept, not recounted. Rows are generated with SQL straight into a bench database:
// 3 teams, 12 sources, 3,000 clusters (a skewed spread, 10% of dead letters in a second source), a
// 150,000-strong wave of one cluster in the last 2 hours, the rest over 14 days, 70% still open.
// Baselines, measured on the same data: the sparkline counted from dead_letters over the day (the
// (cluster_id, status, dead_at) index), and the list recounted from dead_letters.
// Also the ingest side of the second stage: one dead letter with a new fingerprint whose shape holds
// 300 kin templates, against one with a known fingerprint.
//   npx tsx test/bench/run.ts clusters
import { randomUUID } from 'node:crypto';
import type { BenchResult } from './run';
import { measureWhenFlagged, runBenchChild, timed, type Timing } from './support';
import { hourlySeries } from '@/lib/clustering/cluster-hours';
import { getCluster } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';

const CHILD_FLAG = '--clusters-bench-child';
const DEAD_LETTERS = 1_000_000;
const WAVE = 150_000;
const CLUSTERS = 3_000;
const SOURCES = 12;
const RUNS = 60;
const TARGET_MS = 100;

const GENERATE = [
  `INSERT INTO teams (name) VALUES ('team-a'), ('team-b'), ('team-c')`,
  `INSERT INTO sources (name, team_id, updated_at)
   SELECT 'src-' || lpad(i::text, 2, '0'), (SELECT id FROM teams ORDER BY name OFFSET (i % 3) LIMIT 1), now() FROM generate_series(0, ${SOURCES - 1}) i`,
  `CREATE TABLE bench_sources AS SELECT (row_number() OVER (ORDER BY name) - 1)::int AS n, id FROM sources`,
  `CREATE TABLE bench_clusters AS SELECT n, gen_random_uuid() AS id, md5('bench' || n) AS fp FROM generate_series(0, ${CLUSTERS - 1}) n`,
  `INSERT INTO clusters (id, fingerprint, template, error_type, top_frame, shape, first_seen, last_seen)
   SELECT id, fp, 'order <*> failed: cause ' || n || ' at step <*>', 'Err' || (n % 40), 'handler' || (n % 100) || ' (src/h.ts)',
          md5('Err' || (n % 40) || chr(1) || 'handler' || (n % 100) || ' (src/h.ts)'), now(), now()
   FROM bench_clusters`,
  `INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, dead_at, payload, payload_size, payload_sha256,
                             fingerprint, cluster_id, status, expires_at)
   SELECT s.id, 'm-' || g, 'Rejected', 'Err' || (k % 40), 'order ' || g || ' failed: cause ' || k || ' at step ' || (g % 7), t,
          '\\x7b7d'::bytea, 2, repeat('0', 64), c.fp, c.id,
          (CASE WHEN random() < 0.7 THEN 'open' ELSE 'archived' END)::"DeadLetterStatus", t + interval '14 days'
   FROM (
     SELECT g, k, CASE WHEN g <= ${WAVE} THEN now() - random() * interval '2 hours' ELSE now() - random() * interval '14 days' END AS t,
            CASE WHEN random() < 0.1 THEN (k + 1) % ${SOURCES} ELSE k % ${SOURCES} END AS sn
     FROM (SELECT g, CASE WHEN g <= ${WAVE} THEN 0 ELSE floor(${CLUSTERS} * power(random(), 3))::int END AS k
           FROM generate_series(1, ${DEAD_LETTERS}) g) x
   ) y JOIN bench_clusters c ON c.n = y.k JOIN bench_sources s ON s.n = y.sn`,
  // What the ingest write path keeps incrementally, computed once.
  `UPDATE clusters c SET count = a.n, open_count = a.o, first_seen = a.f, last_seen = a.l
   FROM (SELECT cluster_id, count(*)::int n, (count(*) FILTER (WHERE status = 'open'))::int o, min(dead_at) f, max(dead_at) l
         FROM dead_letters GROUP BY 1) a WHERE a.cluster_id = c.id`,
  `INSERT INTO cluster_sources (cluster_id, source_id, count, open_count, first_seen, last_seen)
   SELECT cluster_id, source_id, count(*), count(*) FILTER (WHERE status = 'open'), min(dead_at), max(dead_at) FROM dead_letters GROUP BY 1, 2`,
  `INSERT INTO cluster_hours (cluster_id, source_id, hour, count)
   SELECT cluster_id, source_id, date_trunc('hour', dead_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*) FROM dead_letters GROUP BY 1, 2, 3`,
  `VACUUM ANALYZE`,
];

async function child(): Promise<{ generatedSeconds: number; out: Timing[] }> {
  const db = pg();
  const started = performance.now();
  for (const statement of GENERATE) await db.unsafe(statement);
  const generatedSeconds = (performance.now() - started) / 1000;

  const [teamA] = await db<{ id: string }[]>`SELECT id FROM teams WHERE name = 'team-a'`;
  const support = { userId: randomUUID(), email: 'bench@triage.local', role: 'support' as const, teamId: teamA!.id, via: 'token' as const };
  const auditor = { userId: randomUUID(), email: 'bench-auditor@triage.local', role: 'auditor' as const, teamId: null, via: 'token' as const };
  const [wave] = await db<{ id: string }[]>`SELECT id::text FROM bench_clusters WHERE n = 0`;

  const out: Timing[] = [];
  out.push(await timed('clusters.list team scope, first page (50)', RUNS, () => listClusters(support, {})));
  const first = await listClusters(support, {});
  const second = await listClusters(support, {}, first.nextCursor);
  out.push(await timed('clusters.list team scope, third page', RUNS, () => listClusters(support, {}, second.nextCursor)));
  out.push(await timed('clusters.list all teams (auditor), first page', RUNS, () => listClusters(auditor, {})));
  out.push(await timed('clusters.list team scope, filtered by source', RUNS, () => listClusters(support, { source: 'src-00' })));
  out.push(await timed('clusters.get the wave cluster (page data)', RUNS, () => getCluster(support, wave!.id)));
  // Baselines on the same data.
  const pageIds = first.clusters.map((c) => c.id);
  const teamSources = (await db<{ id: string }[]>`SELECT id::text FROM sources WHERE team_id = ${teamA!.id}`).map((s) => s.id);
  out.push(
    await timed('clusters.sparklines from cluster_hours (50 clusters, 24 h)', RUNS, () =>
      hourlySeries(pageIds, { now: new Date(), hours: 24, restrict: teamSources }),
    ),
  );
  out.push(
    await timed(
      'baseline: 24-h sparklines counted from dead_letters (50 clusters)',
      20,
      () =>
        db`SELECT cluster_id, floor(extract(epoch FROM (now() - dead_at)) / 3600)::int AS ago, count(*)::int AS n FROM dead_letters
         WHERE cluster_id = ANY(${pageIds}::uuid[]) AND status = ANY('{open,redriving,redriven,archived,discarded,expired}'::"DeadLetterStatus"[])
           AND dead_at > now() - interval '24 hours' AND source_id = ANY(${teamSources}::uuid[])
         GROUP BY 1, 2`,
    ),
  );
  out.push(
    await timed(
      'baseline: list recounted from dead_letters (team scope)',
      5,
      () =>
        db`SELECT cluster_id, count(*), count(*) FILTER (WHERE status = 'open'), max(dead_at) FROM dead_letters
         WHERE source_id IN (SELECT id FROM sources WHERE team_id = ${teamA!.id}) GROUP BY 1 ORDER BY 4 DESC LIMIT 51`,
    ),
  );

  // Ingest: the second stage runs only when a fingerprint is new; its shape here holds 300 kin.
  const [source] = await db<{ id: string }[]>`SELECT id::text FROM sources WHERE name = 'src-01'`;
  const policy = { id: source!.id, retentionSeconds: 14 * 86400 };
  const kin = (i: number) => ({
    messageId: `kin-${i}-${randomUUID()}`,
    payload: new TextEncoder().encode('{}'),
    reason: 'Rejected' as const,
    errorType: 'KinError',
    errorMessage: `the ${['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'][i % 6]} step ${['open', 'read', 'parse'][i % 3]} failed on shard${i}x`,
  });
  for (let i = 0; i < 300; i++) await recordDeadLetters(policy, [kin(i)]);
  let next = 300;
  out.push(await timed('ingest one dead letter, new fingerprint (second stage over 300 kin)', 30, () => recordDeadLetters(policy, [kin(next++)])));
  out.push(await timed('ingest one dead letter, known fingerprint', 30, () => recordDeadLetters(policy, [kin(0)])));
  return { generatedSeconds, out };
}

export async function run(): Promise<BenchResult[]> {
  const { generatedSeconds, out } = await runBenchChild<{ generatedSeconds: number; out: Timing[] }>('clusters', import.meta.url, CHILD_FLAG, {
    timeoutMs: 300_000,
  });
  const round = (v: number) => Number(v.toFixed(2));
  const sparklineBaseline = out.find((m) => m.name.startsWith('baseline: 24-h'))!;
  const recountBaseline = out.find((m) => m.name.startsWith('baseline: list recounted'))!;
  return [
    { name: `clusters.bench data: ${DEAD_LETTERS.toLocaleString('en')} dead letters generated in`, value: round(generatedSeconds), unit: 's' },
    ...out.flatMap((m): BenchResult[] => {
      if (m.name.startsWith('baseline')) return [{ name: `${m.name} p95`, value: round(m.p95), unit: 'ms' }];
      if (m.name.startsWith('ingest')) return [{ name: `${m.name} p50`, value: round(m.p50), unit: 'ms' }];
      const baseline = m.name.startsWith('clusters.list team scope, first')
        ? { name: recountBaseline.name, value: round(recountBaseline.p95) }
        : m.name.startsWith('clusters.sparklines')
          ? { name: sparklineBaseline.name, value: round(sparklineBaseline.p95) }
          : undefined;
      return [
        { name: `${m.name} p50`, value: round(m.p50), unit: 'ms' },
        { name: `${m.name} p95`, value: round(m.p95), unit: 'ms', ...(baseline ? { baseline } : {}), target: `≤ ${TARGET_MS} ms`, met: m.p95 <= TARGET_MS },
      ];
    }),
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
