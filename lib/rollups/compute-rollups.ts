// Per-minute rollups for the charts, kept by the maintenance worker (every 15 s):
// - dead_letter_rollups: dead letters per (source, minute of dead-lettering, reason);
// - source_snapshots: depth and oldest age per (source, minute), from the age stats;
// - source_stats.totals: all-time dead letters per (source, reason), the Prometheus counter.
// A minute bucket is recounted whenever a dead letter lands in it (found by id above a watermark),
// so the rollup is exact even for dead letters ingested hours after they died, and recounting a
// bucket twice is harmless: the totals move by the difference.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { DAY } from '@/lib/clock';
import { DEAD_LETTER_STATUSES } from '@/lib/enums';

const WATERMARK_KEY = 'rollups.watermark';
const ROLLUPS_LOCK_KEY = 7_201_000_008;
/** Above this many minute buckets to recount, one pass over the table beats an index walk per bucket. */
const MANY_BUCKETS = 2_000;
/** Snapshots are kept for the 30-day charts, with a margin. */
export const SNAPSHOT_KEEP_MS = 35 * DAY;

interface Watermark {
  /** Highest dead-letter id seen by the previous run and by the one before it. */
  current: string;
  previous: string;
}

export interface RollupResult {
  deadLetters: number;
  buckets: number;
  snapshots: number;
}

export async function computeRollups(now: Date, sql: postgres.Sql = pg()): Promise<RollupResult> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${ROLLUPS_LOCK_KEY})`;
    const [wmRow] = await tx<{ value: Watermark }[]>`SELECT value FROM settings WHERE key = ${WATERMARK_KEY}`;
    const wm = wmRow?.value ?? { current: '0', previous: '0' };
    const [{ hi } = { hi: null }] = await tx<{ hi: bigint | null }[]>`SELECT max(id) AS hi FROM dead_letters`;
    // Rescan from the run before last: a row whose transaction committed after the last run but
    // took a lower id is still picked up.
    const lo = BigInt(wm.previous);
    let deadLetters = 0;
    let buckets = 0;
    if (hi !== null && hi > lo) {
      await tx`CREATE TEMP TABLE rollup_touched ON COMMIT DROP AS
               SELECT source_id, date_trunc('minute', dead_at) AS minute, count(*) AS rows
               FROM dead_letters WHERE id > ${lo.toString()}::bigint AND id <= ${hi.toString()}::bigint GROUP BY 1, 2`;
      const [touched] = await tx<{ buckets: number; rows: number }[]>`SELECT count(*)::int AS buckets, COALESCE(sum(rows), 0)::int AS rows FROM rollup_touched`;
      buckets = touched?.buckets ?? 0;
      deadLetters = touched?.rows ?? 0;
      // A few buckets (every minute): count each through the (source_id, status, dead_at) index.
      // Very many (the first run over an existing table): one pass over dead_letters is cheaper.
      const fresh =
        buckets <= MANY_BUCKETS
          ? tx`SELECT t.source_id, t.minute, x.reason, x.n FROM rollup_touched t
               CROSS JOIN LATERAL (
                 SELECT d.reason, count(*)::int AS n FROM dead_letters d
                 WHERE d.source_id = t.source_id AND d.status = ANY(${DEAD_LETTER_STATUSES as unknown as string[]}::"DeadLetterStatus"[])
                   AND d.dead_at >= t.minute AND d.dead_at < t.minute + interval '1 minute'
                 GROUP BY d.reason) x`
          : tx`SELECT d.source_id, date_trunc('minute', d.dead_at) AS minute, d.reason, count(*)::int AS n FROM dead_letters d
               WHERE (d.source_id, date_trunc('minute', d.dead_at)) IN (SELECT source_id, minute FROM rollup_touched)
               GROUP BY 1, 2, 3`;
      // A recount mostly finds the same number: such rows are left alone, so the table does not churn
      // and the charts' index-only reads stay index-only.
      const deltas = await tx<{ source_id: string; reason: string; delta: string }[]>`
        WITH fresh AS (${fresh}),
        old AS (
          SELECT r.source_id, r.reason, r.count FROM dead_letter_rollups r
          JOIN rollup_touched t ON r.source_id = t.source_id AND r.minute = t.minute),
        saved AS (
          INSERT INTO dead_letter_rollups (source_id, minute, reason, count) SELECT source_id, minute, reason, n FROM fresh
          ON CONFLICT (source_id, minute, reason) DO UPDATE SET count = EXCLUDED.count
          WHERE dead_letter_rollups.count <> EXCLUDED.count)
        SELECT x.source_id, x.reason::text, (sum(x.n) - sum(x.o))::text AS delta
        FROM (SELECT source_id, reason, n, 0 AS o FROM fresh UNION ALL SELECT source_id, reason, 0, count FROM old) x
        GROUP BY x.source_id, x.reason`;
      const changed = deltas.filter((d) => d.delta !== '0');
      if (changed.length) {
        await tx`
          INSERT INTO source_stats (source_id, totals)
          SELECT source_id, jsonb_object_agg(reason, delta::bigint)
          FROM unnest(${changed.map((d) => d.source_id)}::uuid[], ${changed.map((d) => d.reason)}::text[], ${changed.map((d) => d.delta)}::text[])
            AS d(source_id, reason, delta)
          GROUP BY source_id
          ON CONFLICT (source_id) DO UPDATE SET totals = (
            SELECT jsonb_object_agg(k, COALESCE((source_stats.totals ->> k)::bigint, 0) + COALESCE((EXCLUDED.totals ->> k)::bigint, 0))
            FROM (SELECT jsonb_object_keys(source_stats.totals) UNION SELECT jsonb_object_keys(EXCLUDED.totals)) AS keys(k))`;
      }
      const next: Watermark = { previous: wm.current, current: hi.toString() };
      await tx`INSERT INTO settings (key, value, updated_at) VALUES (${WATERMARK_KEY}, ${tx.json(next as never)}, now())
               ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`;
    }
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
