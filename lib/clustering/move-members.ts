// Moving some dead letters from their cluster to another, with the kept counts moved along: the
// cluster counts, the per-source splits and the hourly counts. A split, undoing a merge and
// re-applying grouping rules all end here, so every list keeps reading kept counts, never a recount.
// The dead letters themselves only change cluster: status, history and payload stay as they were.
import type { Query } from './absorb-clusters';

export interface Moved {
  /** Dead letters that changed cluster. */
  members: number;
  open: number;
}

interface Delta {
  cluster: string;
  source: string;
  hour: Date;
  n: number;
  open: number;
  first: Date;
  last: Date;
  /** The error class of the latest of them. */
  cls: string;
}

/** The deltas summed per key: counts added up, the earliest first and the latest last. */
function sumBy(deltas: readonly Delta[], keyOf: (d: Delta) => string): Delta[] {
  const sums = new Map<string, Delta>();
  for (const d of deltas) {
    const s = sums.get(keyOf(d));
    if (!s) sums.set(keyOf(d), { ...d });
    else {
      s.n += d.n;
      s.open += d.open;
      if (d.first < s.first) s.first = d.first;
      if (d.last > s.last) s.last = d.last;
    }
  }
  return [...sums.values()];
}

/**
 * Point dead letters `ids` at cluster `to` (a cluster that is not an alias). Rows are updated
 * first, then the clusters locked in id order (the order of the ingest write path and of
 * closeDeadLetters: rows, then clusters), so none of them deadlock.
 */
export async function moveMembers(q: Query, ids: readonly bigint[] | readonly string[], to: string): Promise<Moved> {
  if (ids.length === 0) return { members: 0, open: 0 };
  // A self-join: `o` is the row as it was, so the old cluster comes back with the new one.
  const deltas = await q<Delta>`
    WITH moved AS (
      UPDATE dead_letters d SET cluster_id = ${to}::uuid
      FROM dead_letters o
      WHERE o.id = d.id AND d.id = ANY(${ids.map(String)}::bigint[]) AND o.cluster_id IS DISTINCT FROM ${to}::uuid
      RETURNING o.cluster_id AS old, d.source_id, d.dead_at, d.status, d.error_class)
    SELECT old::text AS cluster, source_id::text AS source, (date_trunc('hour', dead_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC') AS hour, count(*)::int AS n,
           (count(*) FILTER (WHERE status = 'open'))::int AS open, min(dead_at) AS first, max(dead_at) AS last,
           (array_agg(coalesce(error_class, 'unknown') ORDER BY dead_at DESC))[1]::text AS cls
    FROM moved GROUP BY 1, 2, 3`;
  if (deltas.length === 0) return { members: 0, open: 0 };
  const olds = [...new Set(deltas.map((d) => d.cluster).filter((c) => c !== null))];
  await q`SELECT id FROM clusters WHERE id = ANY(${[...olds, to]}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;

  const sources = sumBy(deltas, (d) => `${d.cluster}|${d.source}`);
  const members = sources.reduce((a, s) => a + s.n, 0);
  const open = sources.reduce((a, s) => a + s.open, 0);
  const first = new Date(Math.min(...sources.map((s) => s.first.getTime())));
  const last = new Date(Math.max(...sources.map((s) => s.last.getTime())));
  // The class of the latest moved dead letter.
  const latest = deltas.reduce((a, d) => (d.last > a.last ? d : a));
  const fromOld = sources.filter((s) => s.cluster !== null);

  // Out of the old clusters.
  await q`
    UPDATE clusters c SET count = greatest(c.count - v.n, 0), open_count = greatest(c.open_count - v.open, 0)
    FROM (SELECT id, sum(n)::int AS n, sum(open)::int AS open
          FROM unnest(${fromOld.map((s) => s.cluster)}::uuid[], ${fromOld.map((s) => s.n)}::int[], ${fromOld.map((s) => s.open)}::int[]) AS u(id, n, open)
          GROUP BY id) v
    WHERE c.id = v.id RETURNING c.id`;
  await q`
    UPDATE cluster_sources cs SET count = greatest(cs.count - v.n, 0), open_count = greatest(cs.open_count - v.open, 0)
    FROM unnest(${fromOld.map((s) => s.cluster)}::uuid[], ${fromOld.map((s) => s.source)}::uuid[], ${fromOld.map((s) => s.n)}::int[],
                ${fromOld.map((s) => s.open)}::int[]) AS v(cluster_id, source_id, n, open)
    WHERE cs.cluster_id = v.cluster_id AND cs.source_id = v.source_id RETURNING cs.cluster_id`;
  // A source share with no member left is gone: the cluster no longer shows in that team's lists.
  await q`DELETE FROM cluster_sources WHERE cluster_id = ANY(${olds}::uuid[]) AND count = 0 RETURNING cluster_id`;
  const hoursOld = deltas.filter((d) => d.cluster !== null);
  await q`
    UPDATE cluster_hours h SET count = greatest(h.count - v.n, 0)
    FROM unnest(${hoursOld.map((d) => d.cluster)}::uuid[], ${hoursOld.map((d) => d.source)}::uuid[],
                ${hoursOld.map((d) => d.hour.toISOString())}::timestamptz[], ${hoursOld.map((d) => d.n)}::int[]) AS v(cluster_id, source_id, hour, n)
    WHERE h.cluster_id = v.cluster_id AND h.source_id = v.source_id AND h.hour = v.hour RETURNING h.hour`;
  await q`DELETE FROM cluster_hours WHERE cluster_id = ANY(${olds}::uuid[]) AND count = 0 RETURNING hour`;

  // Into the new one, which takes the class of the latest member when it is newer than its own latest.
  await q`
    UPDATE clusters SET count = count + ${members}::int, open_count = open_count + ${open}::int,
      first_seen = LEAST(first_seen, ${first.toISOString()}::timestamptz), last_seen = GREATEST(last_seen, ${last.toISOString()}::timestamptz),
      error_class = CASE WHEN ${last.toISOString()}::timestamptz >= last_seen THEN ${latest.cls}::"ErrorClass" ELSE error_class END
    WHERE id = ${to}::uuid RETURNING id`;
  const ins = sumBy(sources, (s) => s.source).sort((a, b) => (a.source < b.source ? -1 : 1));
  await q`
    INSERT INTO cluster_sources (cluster_id, source_id, count, open_count, first_seen, last_seen)
    SELECT ${to}::uuid, v.source_id, v.n, v.open, v.first, v.last
    FROM unnest(${ins.map((s) => s.source)}::uuid[], ${ins.map((s) => s.n)}::int[], ${ins.map((s) => s.open)}::int[],
                ${ins.map((s) => s.first.toISOString())}::timestamptz[], ${ins.map((s) => s.last.toISOString())}::timestamptz[]) AS v(source_id, n, open, first, last)
    ON CONFLICT (cluster_id, source_id) DO UPDATE SET count = cluster_sources.count + EXCLUDED.count,
      open_count = cluster_sources.open_count + EXCLUDED.open_count,
      first_seen = LEAST(cluster_sources.first_seen, EXCLUDED.first_seen), last_seen = GREATEST(cluster_sources.last_seen, EXCLUDED.last_seen)
    RETURNING source_id`;
  const hours = new Map<string, { source: string; hour: Date; n: number }>();
  for (const d of deltas) {
    const k = `${d.source}|${d.hour.getTime()}`;
    const h = hours.get(k);
    if (h) h.n += d.n;
    else hours.set(k, { source: d.source, hour: d.hour, n: d.n });
  }
  const hs = [...hours.values()].sort((a, b) => (a.source !== b.source ? (a.source < b.source ? -1 : 1) : a.hour.getTime() - b.hour.getTime()));
  await q`
    INSERT INTO cluster_hours (cluster_id, source_id, hour, count)
    SELECT ${to}::uuid, v.source_id, v.hour, v.n
    FROM unnest(${hs.map((h) => h.source)}::uuid[], ${hs.map((h) => h.hour.toISOString())}::timestamptz[], ${hs.map((h) => h.n)}::int[]) AS v(source_id, hour, n)
    ON CONFLICT (cluster_id, source_id, hour) DO UPDATE SET count = cluster_hours.count + EXCLUDED.count
    RETURNING hour`;
  return { members, open };
}

/** Kept counts of some clusters, for an audit event's before and after. */
export async function clusterCounts(q: Query, ids: string[]): Promise<Record<string, { count: number; openCount: number }>> {
  const rows = await q<{ id: string; count: number; open_count: number }>`
    SELECT id::text, count, open_count FROM clusters WHERE id = ANY(${ids}::uuid[])`;
  return Object.fromEntries(rows.map((r) => [r.id, { count: r.count, openCount: r.open_count }]));
}
