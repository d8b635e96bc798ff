// Per-source age statistics of open dead letters (open, or held by a redrive task: nothing leaves
// the clock until it leaves Triage): depth, oldest age on both clocks, how many are near or past the
// age deadline, how many will expire undecided. The maintenance worker refreshes
// them every 15 s into source_stats (pages read that row) from dead_letter_open_minutes, the open
// dead letters counted per minute of death, of expiry and of the enqueue clock (kept by triggers):
// a figure is the whole minutes before its threshold plus an exact read of the boundary minute, so
// the refresh does not grow with millions of open rows. The one pass over every open
// dead letter (statsQuery) remains the live fallback of the pages and the proof in the tests.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { camelRow } from '@/lib/db/camel-row';
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
const OPEN_MINUTES_LOCK_KEY = 7_201_000_009;

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
      FROM dead_letters d WHERE d.source_id = s.id AND d.status IN ('open', 'redriving')) a
    ${sourceIds ? sql`WHERE s.id = ANY(${sourceIds}::uuid[])` : sql``}`;
}

/**
 * The open counts of the sources, netted: the drained minutes plus the differences not yet drained,
 * both read in the statement's one snapshot, so they are exactly the open rows it sees.
 */
const openMinutes = (sql: postgres.TransactionSql, where: postgres.PendingQuery<postgres.Row[]>) => sql`
  SELECT dead_minute, expires_minute, clock_minute, life_seconds, sum(count) AS count FROM (
    SELECT dead_minute, expires_minute, clock_minute, life_seconds, count FROM dead_letter_open_minutes om WHERE ${where}
    UNION ALL SELECT dead_minute, expires_minute, clock_minute, life_seconds, count FROM dead_letter_open_pending om WHERE ${where}) u
  GROUP BY 1, 2, 3, 4 HAVING sum(count) <> 0`;

/** The drained differences added to the minutes (serialised: two drains never take the same rows). */
async function drainOpenMinutes(sql: postgres.Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${OPEN_MINUTES_LOCK_KEY})`;
    await tx`
      WITH taken AS (DELETE FROM dead_letter_open_pending RETURNING source_id, dead_minute, expires_minute, clock_minute, life_seconds, count)
      INSERT INTO dead_letter_open_minutes (source_id, dead_minute, expires_minute, clock_minute, life_seconds, count)
      SELECT source_id, dead_minute, expires_minute, clock_minute, life_seconds, sum(count) FROM taken GROUP BY 1, 2, 3, 4, 5 HAVING sum(count) <> 0
      ON CONFLICT (source_id, dead_minute, expires_minute, clock_minute, life_seconds)
      DO UPDATE SET count = dead_letter_open_minutes.count + EXCLUDED.count`;
    await tx`DELETE FROM dead_letter_open_minutes WHERE count = 0`;
  });
}

/** The same figures as statsQuery, from the open minutes and boundary reads. */
function incrementalQuery(sql: postgres.TransactionSql, now: Date) {
  const n = sql`${now}::timestamptz`;
  const minute = (t: postgres.PendingQuery<postgres.Row[]>) => sql`date_trunc('minute', ${t})`;
  // Thresholds on the dead-letter time: open rows dead at or before each.
  const edges: { key: string; at: postgres.PendingQuery<postgres.Row[]> }[] = [
    { key: 'breach', at: sql`${n} - x.deadline` },
    { key: 'near', at: sql`${n} - x.deadline + ${ms(NEAR_DEADLINE_MS)}::interval` },
    ...AGE_BUCKETS.filter((b) => Number.isFinite(b.upToMs)).map((b) => ({ key: `h${b.upToMs}`, at: sql`${n} - ${ms(b.upToMs)}::interval` })),
  ];
  const sums = edges.map((e) => sql`, sum(count) FILTER (WHERE dead_minute < ${minute(e.at)}) AS ${sql(`le_${e.key}`)}`);
  // Rows dead in the edge's own minute, up to it: one range of the (source, dead_at) open index.
  const le = (key: string) => {
    const e = edges.find((x) => x.key === key)!;
    return sql`(COALESCE(m.${sql(`le_${key}`)}, 0) + (SELECT count(*) FROM dead_letters d WHERE d.source_id = s.id AND d.status IN ('open', 'redriving')
              AND d.dead_at >= ${minute(e.at)} AND d.dead_at <= ${e.at}))`;
  };
  const leAge = (upToMs: number) => (Number.isFinite(upToMs) ? le(`h${upToMs}`) : sql`0`);
  const finite = AGE_BUCKETS.filter((b) => Number.isFinite(b.upToMs));
  const histogram = AGE_BUCKETS.map((b, i) => {
    const older = i === 0 ? sql`m.open` : leAge(finite[i - 1]!.upToMs);
    return sql`jsonb_build_object('bucket', ${b.label}::text, 'count', (${older} - ${leAge(b.upToMs)})::int)`;
  }).reduce((acc, b) => sql`${acc}, ${b}`);
  // A figure on another clock: the rows of its boundary minute are in the dead minutes the open
  // minutes name for it, read through the same index (index-only: the condition is written so the
  // planner does not pick the expiry index and fetch every row of the expiry minute from the heap).
  const inMinutes = (
    column: string,
    at: postgres.PendingQuery<postgres.Row[]>,
    pick: postgres.PendingQuery<postgres.Row[]>,
    cond: postgres.PendingQuery<postgres.Row[]>,
  ) => sql`
    (SELECT ${pick} FROM (SELECT DISTINCT dead_minute FROM (${openMinutes(sql, sql`om.source_id = s.id`)}) o WHERE o.${sql(column)} = ${at}) mm
     CROSS JOIN LATERAL (SELECT d.dead_at, d.enqueued_at, d.expires_at FROM dead_letters d WHERE d.source_id = s.id AND d.status IN ('open', 'redriving')
       AND d.dead_at >= mm.dead_minute AND d.dead_at < mm.dead_minute + interval '1 minute' AND ${cond}) d)`;
  const soon = sql`${n} + ${ms(EXPIRY_WARNING_MS)}::interval`;
  const clock = sql`LEAST(d.dead_at, COALESCE(d.enqueued_at, d.dead_at))`;
  return sql`
    SELECT s.id AS source_id, COALESCE(m.open, 0)::int AS open_count,
      (SELECT min(d.dead_at) FROM dead_letters d WHERE d.source_id = s.id AND d.status IN ('open', 'redriving')) AS oldest_dead_at,
      ${inMinutes('clock_minute', sql`m.clock_minute`, sql`min(${clock})`, sql`${clock} >= m.clock_minute AND ${clock} < m.clock_minute + interval '1 minute'`)} AS oldest_enqueued_at,
      COALESCE(${le('near')} - ${le('breach')}, 0)::int AS near_deadline,
      COALESCE(${le('breach')}, 0)::int AS breached,
      COALESCE(m.undecided, 0)::int AS expire_undecided,
      COALESCE(COALESCE(m.expiring, 0) + ${inMinutes('expires_minute', minute(soon), sql`count(*)`, sql`d.expires_at + interval '0' >= ${minute(soon)} AND d.expires_at + interval '0' <= ${soon}`)}, 0)::int AS expiring_soon,
      (SELECT d.expires_at FROM dead_letters d WHERE d.source_id = s.id AND d.status IN ('open', 'redriving')
         AND d.expires_at >= m.expires_minute AND d.expires_at < m.expires_minute + interval '1 minute' ORDER BY d.expires_at LIMIT 1) AS next_expiry_at,
      CASE WHEN m.open IS NULL THEN jsonb_build_array(${AGE_BUCKETS.map((b) => sql`jsonb_build_object('bucket', ${b.label}::text, 'count', 0)`).reduce((a, b) => sql`${a}, ${b}`)})
           ELSE jsonb_build_array(${histogram}) END AS age_histogram
    FROM sources s
    CROSS JOIN LATERAL (SELECT make_interval(secs => s.age_deadline_seconds) AS deadline) x
    LEFT JOIN LATERAL (
      SELECT sum(count) AS open, min(expires_minute) AS expires_minute, min(clock_minute) AS clock_minute,
        sum(count) FILTER (WHERE life_seconds < s.age_deadline_seconds) AS undecided,
        sum(count) FILTER (WHERE expires_minute < ${minute(soon)}) AS expiring ${sums.reduce((a, b) => sql`${a}${b}`)}
      FROM (${openMinutes(sql, sql`om.source_id = s.id`)}) o HAVING sum(count) > 0) m ON true`;
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

/** A row of the stats query (or of source_stats): its columns are AgeStats' fields, snake_case. */
const toStats = (r: Row, now: Date): AgeStats => ({ ...camelRow(r), evaluatedAt: now });

/** Compute without storing: the SLA board's fallback when a source's stored stats are stale. */
export async function computeAgeStats(now: Date, sourceIds: string[] | null = null, sql = pg()): Promise<AgeStats[]> {
  const rows = await withoutJit(sql, (tx) => tx<Row[]>`${statsQuery(tx, now, sourceIds)}`);
  return rows.map((r) => toStats(r, now));
}

/** Compute for every source and store into source_stats (the maintenance worker, every 15 s). */
export async function refreshAgeStats(now: Date, sql = pg()): Promise<AgeStats[]> {
  await drainOpenMinutes(sql);
  const rows = await withoutJit(
    sql,
    (tx) => tx<Row[]>`
    INSERT INTO source_stats (source_id, open_count, oldest_dead_at, oldest_enqueued_at, near_deadline, breached,
                              expire_undecided, expiring_soon, next_expiry_at, age_histogram, evaluated_at)
    SELECT a.*, ${now}::timestamptz FROM (${incrementalQuery(tx, now)}) a ORDER BY a.source_id -- as the rollups upsert them: no deadlock
    ON CONFLICT (source_id) DO UPDATE SET open_count = EXCLUDED.open_count, oldest_dead_at = EXCLUDED.oldest_dead_at,
      oldest_enqueued_at = EXCLUDED.oldest_enqueued_at, near_deadline = EXCLUDED.near_deadline, breached = EXCLUDED.breached,
      expire_undecided = EXCLUDED.expire_undecided, expiring_soon = EXCLUDED.expiring_soon,
      next_expiry_at = EXCLUDED.next_expiry_at, age_histogram = EXCLUDED.age_histogram, evaluated_at = EXCLUDED.evaluated_at
    RETURNING source_id, open_count, oldest_dead_at, oldest_enqueued_at, near_deadline, breached, expire_undecided,
      expiring_soon, next_expiry_at, age_histogram`,
  );
  return rows.map((r) => toStats(r, now));
}
