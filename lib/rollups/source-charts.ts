// The data behind a source's charts, all from what the maintenance worker keeps (per-minute
// rollups and snapshots, the age stats), so a chart costs a few hundred rows at any table size.
import { pg } from '@/lib/db';
import { readDb, retriedOnPrimary } from '@/lib/db/replica';
import type { Principal } from '@/lib/auth';
import { DAY, HOUR, MINUTE, systemClock, type Clock } from '@/lib/clock';
import { DEAD_LETTER_REASONS } from '@/lib/model/dead-letter';
import { computeAgeStats, AGE_BUCKETS } from '@/lib/sla/age-stats';
import { STATS_MAX_AGE_MS } from '@/lib/sla/sla-board';
import { findSource } from '@/lib/model/find-source';
import { hourlySeries } from '@/lib/clustering/cluster-hours';

export const CHART_RANGES = {
  '1h': { rangeMs: HOUR, bucketMs: MINUTE },
  '24h': { rangeMs: DAY, bucketMs: 15 * MINUTE },
  '7d': { rangeMs: 7 * DAY, bucketMs: 2 * HOUR },
  '30d': { rangeMs: 30 * DAY, bucketMs: 12 * HOUR },
} as const;
export type ChartRange = keyof typeof CHART_RANGES;

export const isChartRange = (v: unknown): v is ChartRange => typeof v === 'string' && v in CHART_RANGES;

export type RatePoint = { t: string } & Record<string, number | string>;
export interface DepthPoint {
  t: string;
  open: number | null;
  /** Seconds: the chart writes them as the pages write ages (minutes under an hour). */
  oldestAgeSeconds: number | null;
}

/** Bucket starts covering the range, aligned to the bucket size so a refresh shows the same buckets. */
function buckets(now: Date, range: ChartRange): Date[] {
  const { rangeMs, bucketMs } = CHART_RANGES[range];
  const end = Math.ceil((now.getTime() + 1) / bucketMs) * bucketMs;
  const out: Date[] = [];
  for (let t = end - rangeMs; t < end; t += bucketMs) out.push(new Date(t));
  return out;
}

const interval = (ms: number) => `${ms} milliseconds`;

/** Dead letters per bucket, one key per reason (zero-filled), for a stacked chart. */
export async function rateByReason(sourceId: string, now: Date, range: ChartRange, sql = pg()): Promise<RatePoint[]> {
  const bs = buckets(now, range);
  const { bucketMs } = CHART_RANGES[range];
  const rows = await sql<{ t: Date; reason: string; n: number }[]>`
    SELECT date_bin(${interval(bucketMs)}::interval, minute, 'epoch'::timestamptz) AS t, reason, sum(count)::int AS n
    FROM dead_letter_rollups
    WHERE source_id = ${sourceId}::uuid AND minute >= ${bs[0]!}::timestamptz AND minute < ${new Date(bs[bs.length - 1]!.getTime() + bucketMs)}::timestamptz
    GROUP BY 1, 2`;
  const byT = new Map(bs.map((b) => [b.getTime(), Object.fromEntries([['t', b.toISOString()], ...DEAD_LETTER_REASONS.map((r) => [r, 0])]) as RatePoint]));
  for (const r of rows) {
    const p = byT.get(r.t.getTime());
    if (p) p[r.reason] = r.n;
  }
  return [...byT.values()];
}

/** Depth and oldest age (seconds) per bucket: the bucket's peak, null where no snapshot was taken. */
export async function depthAndAge(sourceId: string, now: Date, range: ChartRange, sql = pg()): Promise<DepthPoint[]> {
  const bs = buckets(now, range);
  const { bucketMs } = CHART_RANGES[range];
  const rows = await sql<{ t: Date; open: number; oldest: number }[]>`
    SELECT date_bin(${interval(bucketMs)}::interval, minute, 'epoch'::timestamptz) AS t, max(open_count) AS open, max(oldest_age_seconds) AS oldest
    FROM source_snapshots
    WHERE source_id = ${sourceId}::uuid AND minute >= ${bs[0]!}::timestamptz AND minute < ${new Date(bs[bs.length - 1]!.getTime() + bucketMs)}::timestamptz
    GROUP BY 1`;
  const byT = new Map(rows.map((r) => [r.t.getTime(), r]));
  return bs.map((b) => {
    const r = byT.get(b.getTime());
    return { t: b.toISOString(), open: r ? r.open : null, oldestAgeSeconds: r ? Number(r.oldest) : null };
  });
}

/** Open dead letters by age since dead-lettered, from the stored stats (recomputed if stale). */
export async function ageHistogram(sourceId: string, now: Date, sql = pg()): Promise<{ bucket: string; count: number }[]> {
  const [stored] = await sql<{ age_histogram: { bucket: string; count: number }[]; evaluated_at: Date | null }[]>`
    SELECT age_histogram, evaluated_at FROM source_stats WHERE source_id = ${sourceId}::uuid`;
  if (stored?.evaluated_at && Math.abs(now.getTime() - stored.evaluated_at.getTime()) <= STATS_MAX_AGE_MS) return stored.age_histogram;
  const [live] = await computeAgeStats(now, [sourceId], sql);
  return live?.ageHistogram ?? AGE_BUCKETS.map((b) => ({ bucket: b.label, count: 0 }));
}

export interface ClusterSpark {
  clusterId: string;
  errorType: string | null;
  template: string;
  openCount: number;
  hourly: number[];
}

/**
 * The source's clusters with the most open dead letters, each with its dead letters per hour over
 * the last day in this source (from cluster_hours, kept at ingest by lib/clustering).
 */
export async function clusterSparks(sourceId: string, now: Date, limit = 8, sql = pg()): Promise<ClusterSpark[]> {
  const top = await sql<{ cluster_id: string; error_type: string | null; template: string; open_count: number }[]>`
    SELECT cs.cluster_id, c.error_type, c.template, cs.open_count FROM cluster_sources cs JOIN clusters c ON c.id = cs.cluster_id
    WHERE cs.source_id = ${sourceId}::uuid AND (cs.open_count > 0 OR cs.last_seen > ${now}::timestamptz - interval '1 day')
    ORDER BY cs.open_count DESC, cs.last_seen DESC LIMIT ${limit}`;
  const hourly = await hourlySeries(
    top.map((t) => t.cluster_id),
    { now, hours: 24, restrict: [sourceId], sql },
  );
  return top.map((t) => ({
    clusterId: t.cluster_id,
    errorType: t.error_type,
    template: t.template,
    openCount: t.open_count,
    hourly: hourly.get(t.cluster_id)?.counts ?? [],
  }));
}

/** Everything a source page charts, for a source the actor may read. */
async function sourceChartsOnce(actor: Principal, sourceRef: string, opts: { clock?: Clock; range?: ChartRange } = {}) {
  const now = (opts.clock ?? systemClock).now();
  const range = opts.range ?? '24h';
  const source = await findSource(actor, sourceRef, 'deadletters.read');
  const sql = await readDb(actor);
  const [rate, depth, histogram, clusters] = await Promise.all([
    rateByReason(source.id, now, range, sql),
    depthAndAge(source.id, now, range, sql),
    ageHistogram(source.id, now, sql),
    clusterSparks(source.id, now, 8, sql),
  ]);
  return { source, range, rate, depth, histogram, clusters };
}

/** sourceCharts, once more on the primary if the replica goes away under it (lib/db/replica.ts). */
export const sourceCharts = retriedOnPrimary(sourceChartsOnce);
