// The SLA board, the lead's home: per source the actor may read, the open dead letters, the oldest
// open age on both clocks, how many are near or past the age deadline, how many will expire before
// anyone decides them, the depth trend, and for a connector source its source queue as last read. Reads one stored stats row per source (refreshed every
// 15 s by the maintenance worker), so it costs the same at a thousand or a million dead letters.
import { db, pg } from '@/lib/db';
import { readDb, retriedOnPrimary } from '@/lib/db/replica';
import { sourceScope, type Principal } from '@/lib/auth';
import { DAY, MINUTE, systemClock, type Clock } from '@/lib/clock';
import { sourceQueueReadings, type SourceQueueView } from '@/lib/connectors/source-queue-view';
import { computeAgeStats, type AgeStats } from './age-stats';

/** Stored stats older than this are recomputed on the spot (the maintenance worker is behind or down). */
export const STATS_MAX_AGE_MS = MINUTE;

export interface SlaRow {
  source: { id: string; name: string; team: string; ageDeadlineSeconds: number; retentionSeconds: number };
  openCount: number;
  /** Age of the oldest open dead letter since it was dead-lettered, seconds. */
  oldestAgeSeconds: number | null;
  /** Age of the oldest open dead letter since first enqueued (the SQS standard-queue clock), seconds. */
  oldestEnqueuedAgeSeconds: number | null;
  nearDeadline: number;
  breached: number;
  expireUndecided: number;
  expiringSoon: number;
  nextExpiryAt: Date | null;
  alarms: { kind: string; state: string; label: string | null }[];
  /** Connector sources: the source queue beside the DLQ, as last read (never read: null). */
  sourceQueue: SourceQueueView | null;
  /** Open dead letters at the end of each of the last `trendDays` days (UTC), oldest first; null: no data. */
  trend: { day: string; open: number | null }[];
  evaluatedAt: Date;
  live: boolean;
}

const ageSeconds = (now: Date, at: Date | null) => (at ? Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000)) : null);

async function getSlaBoardOnce(actor: Principal, opts: { clock?: Clock; trendDays?: 7 | 30; sourceIds?: string[] } = {}): Promise<SlaRow[]> {
  const now = (opts.clock ?? systemClock).now();
  const trendDays = opts.trendDays ?? 7;
  const sources = await db().source.findMany({
    where: { ...sourceScope(actor, 'deadletters.read'), ...(opts.sourceIds ? { id: { in: opts.sourceIds } } : {}) },
    orderBy: { name: 'asc' },
    select: {
      id: true,
      name: true,
      ageDeadlineSeconds: true,
      retentionSeconds: true,
      team: { select: { name: true } },
      stats: true,
      alarms: { select: { kind: true, state: true, label: true } },
    },
  });
  if (sources.length === 0) return [];
  const stale = sources.filter((s) => !s.stats?.evaluatedAt || Math.abs(now.getTime() - s.stats.evaluatedAt.getTime()) > STATS_MAX_AGE_MS).map((s) => s.id);
  // The source list (Prisma) is a small primary read; the figures read the replica when fit.
  const sql = await readDb(actor);
  const live = new Map((stale.length ? await computeAgeStats(now, stale, sql) : []).map((s) => [s.sourceId, s]));
  const trend = await depthTrend(
    sources.map((s) => s.id),
    now,
    trendDays,
    sql,
  );
  const queues = await sourceQueueReadings(
    sources.map((s) => s.id),
    now,
  );
  return sources.map((s) => {
    const st: Omit<AgeStats, 'sourceId' | 'ageHistogram'> = live.get(s.id) ?? (s.stats as NonNullable<typeof s.stats> & { evaluatedAt: Date });
    return {
      source: { id: s.id, name: s.name, team: s.team.name, ageDeadlineSeconds: s.ageDeadlineSeconds, retentionSeconds: s.retentionSeconds },
      openCount: st.openCount,
      oldestAgeSeconds: ageSeconds(now, st.oldestDeadAt),
      oldestEnqueuedAgeSeconds: ageSeconds(now, st.oldestEnqueuedAt),
      nearDeadline: st.nearDeadline,
      breached: st.breached,
      expireUndecided: st.expireUndecided,
      expiringSoon: st.expiringSoon,
      nextExpiryAt: st.nextExpiryAt,
      alarms: s.alarms.map((a) => ({ kind: a.kind, state: a.state, label: a.label })),
      sourceQueue: queues.get(s.id) ?? null,
      trend: trend.get(s.id) ?? [],
      evaluatedAt: st.evaluatedAt,
      live: live.has(s.id),
    };
  });
}

/**
 * Depth at the end of each day from the per-minute snapshots: one index lookup per source and day
 * (the last snapshot of that day), not a scan of a month of minutes.
 */
export async function depthTrend(sourceIds: string[], now: Date, days: number, sql = pg()): Promise<Map<string, { day: string; open: number | null }[]>> {
  const today = new Date(Math.floor(now.getTime() / DAY) * DAY);
  const first = new Date(today.getTime() - (days - 1) * DAY);
  const rows = await sql<{ source_id: string; day: Date; open_count: number | null }[]>`
    SELECT s.source_id, g.day, snap.open_count
    FROM unnest(${sourceIds}::uuid[]) AS s(source_id)
    CROSS JOIN generate_series(${first}::timestamptz, ${today}::timestamptz, interval '1 day') AS g(day)
    LEFT JOIN LATERAL (
      SELECT ss.open_count FROM source_snapshots ss
      WHERE ss.source_id = s.source_id AND ss.minute >= g.day
        AND ss.minute < LEAST(g.day + interval '1 day', ${now}::timestamptz + interval '1 minute')
      ORDER BY ss.minute DESC LIMIT 1) snap ON true
    ORDER BY s.source_id, g.day`;
  const out = new Map<string, { day: string; open: number | null }[]>();
  for (const r of rows) {
    const list = out.get(r.source_id) ?? [];
    list.push({ day: r.day.toISOString().slice(0, 10), open: r.open_count });
    out.set(r.source_id, list);
  }
  return out;
}

/** getSlaBoard, once more on the primary if the replica goes away under it (lib/db/replica.ts). */
export const getSlaBoard = retriedOnPrimary(getSlaBoardOnce);
