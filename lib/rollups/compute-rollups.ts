// Per-minute rollups for the charts, kept by the maintenance worker (every 15 s):
// - dead_letter_rollups: dead letters per (source, minute of dead-lettering, reason);
// - source_snapshots: depth and oldest age per (source, minute), from the age stats;
// - source_stats.totals: all-time dead letters per (source, reason), the Prometheus counter.
// Each insert statement on dead_letters appends its counts per (source, minute, reason) to
// dead_letter_rollup_pending (a statement-level trigger); a run drains that table with DELETE …
// RETURNING and adds the counts: the cost follows the new rows' buckets, not the rows already in
// them (a storm's minute holds ~700k). Exact for dead letters ingested hours after they died, and
// for a transaction that commits after a run (the next run drains its counts); none is counted twice.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { DAY } from '@/lib/clock';

const ROLLUPS_LOCK_KEY = 7_201_000_008;
/** Snapshots are kept for the 30-day charts, with a margin. */
export const SNAPSHOT_KEEP_MS = 35 * DAY;

export interface RollupResult {
  deadLetters: number;
  buckets: number;
  snapshots: number;
}

export async function computeRollups(now: Date, sql: postgres.Sql = pg()): Promise<RollupResult> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${ROLLUPS_LOCK_KEY})`;
    // One statement: the drained counts, summed per bucket (a bucket appears once for ON CONFLICT), added
    // to the rollups and to the all-time totals.
    const [drained] = await tx<{ dead_letters: number; buckets: number }[]>`
      WITH taken AS (DELETE FROM dead_letter_rollup_pending RETURNING source_id, minute, reason, count),
      -- A source deleted while a write of its was in flight (dead_letters keeps no foreign key) has no
      -- rollups left to keep: its counts are dropped, or source_stats' foreign key would fail every run.
      bucket AS (SELECT source_id, minute, reason, sum(count)::int AS n FROM taken t
        WHERE EXISTS (SELECT 1 FROM sources s WHERE s.id = t.source_id) GROUP BY 1, 2, 3 HAVING sum(count) <> 0),
      counted AS (
        INSERT INTO dead_letter_rollups (source_id, minute, reason, count) SELECT source_id, minute, reason, n FROM bucket
        ON CONFLICT (source_id, minute, reason) DO UPDATE SET count = dead_letter_rollups.count + EXCLUDED.count),
      totalled AS (
        INSERT INTO source_stats (source_id, totals)
        SELECT source_id, jsonb_object_agg(reason, n) FROM (SELECT source_id, reason::text, sum(n)::bigint AS n FROM bucket GROUP BY 1, 2) t
        GROUP BY source_id ORDER BY source_id -- the age-stats refresh upserts these rows in the same order: no deadlock
        ON CONFLICT (source_id) DO UPDATE SET totals = (
          SELECT jsonb_object_agg(k, COALESCE((source_stats.totals ->> k)::bigint, 0) + COALESCE((EXCLUDED.totals ->> k)::bigint, 0))
          FROM (SELECT jsonb_object_keys(source_stats.totals) UNION SELECT jsonb_object_keys(EXCLUDED.totals)) AS keys(k)))
      SELECT COALESCE(sum(n), 0)::int AS dead_letters, count(DISTINCT (source_id, minute))::int AS buckets FROM bucket`;
    const deadLetters = drained?.dead_letters ?? 0;
    const buckets = drained?.buckets ?? 0;
    // Depth and oldest age for this minute, from the age stats the alarms refresh every 15 s.
    const snapshots = await tx`
      INSERT INTO source_snapshots (source_id, minute, open_count, oldest_age_seconds)
      SELECT source_id, date_trunc('minute', ${now}::timestamptz), open_count,
        COALESCE(GREATEST(0, extract(epoch FROM (${now}::timestamptz - oldest_dead_at))), 0)::int
      FROM source_stats WHERE evaluated_at IS NOT NULL
      ON CONFLICT (source_id, minute) DO UPDATE SET open_count = EXCLUDED.open_count, oldest_age_seconds = EXCLUDED.oldest_age_seconds`;
    await tx`DELETE FROM source_snapshots WHERE minute < ${new Date(now.getTime() - SNAPSHOT_KEEP_MS)}::timestamptz`;
    // Hourly cluster counts feed sparklines (24 h) and cluster trends (7 d): older hours only grow the table.
    await tx`DELETE FROM cluster_hours WHERE hour < ${new Date(now.getTime() - SNAPSHOT_KEEP_MS)}::timestamptz`;
    return { deadLetters, buckets, snapshots: snapshots.count };
  });
}
