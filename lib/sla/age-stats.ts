// Per-source age statistics of open dead letters: depth, oldest age on both clocks, how many are
// near or past the age deadline, how many will expire undecided. One pass over the open dead letters
// of each source, run by the maintenance worker every 15 s into source_stats; pages read that row.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { DAY, HOUR } from '@/lib/clock';

/** A deadline this close counts as near (the SLA board's amber column). */
export const NEAR_DEADLINE_MS = 24 * HOUR;
/** Expiry this close is warned about on the SLA board: days ahead, time to lengthen the retention. */
export const EXPIRY_WARNING_MS = 3 * DAY;

/** Age buckets of the age histogram, by time since dead-lettered; the last is open-ended. */
export const AGE_BUCKETS = [
  { label: '< 1 h', upToMs: HOUR },
  { label: '1–6 h', upToMs: 6 * HOUR },
  { label: '6–24 h', upToMs: DAY },
  { label: '1–3 d', upToMs: 3 * DAY },
  { label: '3–7 d', upToMs: 7 * DAY },
  { label: '7–14 d', upToMs: 14 * DAY },
  { label: '≥ 14 d', upToMs: Infinity },
] as const;

export interface AgeStats {
  sourceId: string;
  openCount: number;
  oldestDeadAt: Date | null;
  /** The SQS standard-queue clock: the earliest original enqueue time (dead-letter time if unknown). */
  oldestEnqueuedAt: Date | null;
  nearDeadline: number;
  breached: number;
  /** Open dead letters whose expiry comes before their deadline: the retention trap. */
  expireUndecided: number;
  expiringSoon: number;
  nextExpiryAt: Date | null;
  ageHistogram: { bucket: string; count: number }[];
  evaluatedAt: Date;
}

interface Row {
  source_id: string;
  open_count: number;
  oldest_dead_at: Date | null;
  oldest_enqueued_at: Date | null;
  near_deadline: number;
  breached: number;
  expire_undecided: number;
  expiring_soon: number;
  next_expiry_at: Date | null;
  age_histogram: { bucket: string; count: number }[];
}

const ms = (n: number) => `${n} milliseconds`;

function statsQuery(sql: postgres.TransactionSql, now: Date, sourceIds: string[] | null) {
  const finite = AGE_BUCKETS.filter((b) => Number.isFinite(b.upToMs));
  // Bucket i holds ages in [upTo(i-1), upTo(i)); written as ranges on dead_at.
  const buckets = AGE_BUCKETS.map((b, i) => {
    const lower = i === 0 ? null : finite[i - 1]!.upToMs;
    const younger = Number.isFinite(b.upToMs) ? sql`d.dead_at > ${now}::timestamptz - ${ms(b.upToMs)}::interval` : sql`true`;
    const older = lower === null ? sql`true` : sql`d.dead_at <= ${now}::timestamptz - ${ms(lower)}::interval`;
    return sql`jsonb_build_object('bucket', ${b.label}::text, 'count', count(*) FILTER (WHERE ${younger} AND ${older}))`;
  });
  const histogram = buckets.reduce((acc, b, i) => (i === 0 ? b : sql`${acc}, ${b}`));
  // Per source, through the covering partial index (source_id, dead_at) INCLUDE (enqueued_at,
  // expires_at) WHERE open: an index-only scan, where a join over all sources reads the heap.
  return sql`
    SELECT s.id AS source_id, a.*
    FROM sources s
    CROSS JOIN LATERAL (SELECT make_interval(secs => s.age_deadline_seconds) AS deadline) x
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS open_count,
        min(d.dead_at) AS oldest_dead_at,
        min(LEAST(d.dead_at, COALESCE(d.enqueued_at, d.dead_at))) AS oldest_enqueued_at,
        count(*) FILTER (WHERE d.dead_at + x.deadline > ${now}::timestamptz
                           AND d.dead_at + x.deadline <= ${now}::timestamptz + ${ms(NEAR_DEADLINE_MS)}::interval)::int AS near_deadline,
        count(*) FILTER (WHERE d.dead_at + x.deadline <= ${now}::timestamptz)::int AS breached,
        count(*) FILTER (WHERE d.expires_at < d.dead_at + x.deadline)::int AS expire_undecided,
        count(*) FILTER (WHERE d.expires_at <= ${now}::timestamptz + ${ms(EXPIRY_WARNING_MS)}::interval)::int AS expiring_soon,
        min(d.expires_at) AS next_expiry_at,
        jsonb_build_array(${histogram}) AS age_histogram
      FROM dead_letters d WHERE d.source_id = s.id AND d.status = 'open') a
    ${sourceIds ? sql`WHERE s.id = ANY(${sourceIds}::uuid[])` : sql``}`;
}

/**
 * Run the stats query without JIT: its cost estimate (a pass per source) switches JIT on, and
 * compiling takes longer than the sub-second query it would speed up.
 */
async function withoutJit<T>(sql: postgres.Sql, fn: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return sql.begin(async (tx) => {
    await tx`SET LOCAL jit = off`;
    return fn(tx);
  }) as Promise<T>;
}

const toStats = (r: Row, now: Date): AgeStats => ({
  sourceId: r.source_id,
  openCount: r.open_count,
  oldestDeadAt: r.oldest_dead_at,
  oldestEnqueuedAt: r.oldest_enqueued_at,
  nearDeadline: r.near_deadline,
  breached: r.breached,
  expireUndecided: r.expire_undecided,
  expiringSoon: r.expiring_soon,
  nextExpiryAt: r.next_expiry_at,
  ageHistogram: r.age_histogram,
  evaluatedAt: now,
});

/** Compute without storing: the SLA board's fallback when a source's stored stats are stale. */
export async function computeAgeStats(now: Date, sourceIds: string[] | null = null, sql = pg()): Promise<AgeStats[]> {
  const rows = await withoutJit(sql, (tx) => tx<Row[]>`${statsQuery(tx, now, sourceIds)}`);
  return rows.map((r) => toStats(r, now));
}

/** Compute for every source and store into source_stats (the maintenance worker, every 15 s). */
export async function refreshAgeStats(now: Date, sql = pg()): Promise<AgeStats[]> {
  const rows = await withoutJit(sql, (tx) => tx<Row[]>`
    INSERT INTO source_stats (source_id, open_count, oldest_dead_at, oldest_enqueued_at, near_deadline, breached,
                              expire_undecided, expiring_soon, next_expiry_at, age_histogram, evaluated_at)
    SELECT a.*, ${now}::timestamptz FROM (${statsQuery(tx, now, null)}) a
    ON CONFLICT (source_id) DO UPDATE SET open_count = EXCLUDED.open_count, oldest_dead_at = EXCLUDED.oldest_dead_at,
      oldest_enqueued_at = EXCLUDED.oldest_enqueued_at, near_deadline = EXCLUDED.near_deadline, breached = EXCLUDED.breached,
      expire_undecided = EXCLUDED.expire_undecided, expiring_soon = EXCLUDED.expiring_soon,
      next_expiry_at = EXCLUDED.next_expiry_at, age_histogram = EXCLUDED.age_histogram, evaluated_at = EXCLUDED.evaluated_at
    RETURNING source_id, open_count, oldest_dead_at, oldest_enqueued_at, near_deadline, breached, expire_undecided,
      expiring_soon, next_expiry_at, age_histogram`);
  return rows.map((r) => toStats(r, now));
}
