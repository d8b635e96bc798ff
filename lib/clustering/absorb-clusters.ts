// Folding clusters into one: the second stage at ingest (a new fingerprint proves two templates one
// cause) and a lead's merge both end here. The absorbed clusters stay as aliases (merged_into_id),
// so arrivals with their fingerprints count into the survivor (recordDeadLetters follows aliases);
// their members are re-pointed and their counts, per-source splits and hourly counts moved, so every
// list keeps reading one cluster id and kept counts, never a recount.
//
// Ingest runs on postgres.js and audited decisions on Prisma, so the SQL is written once against a
// tagged-template runner that both provide.
import type postgres from 'postgres';
import type { Tx } from '@/lib/db';
import { AppError } from '@/lib/errors';

/** A tagged-template query: postgres.js's transaction or Prisma's `$queryRaw`. */
export type Query = <T = Record<string, unknown>>(strings: TemplateStringsArray, ...values: unknown[]) => Promise<T[]>;

export const prismaQuery =
  (tx: Tx): Query =>
  <T>(strings: TemplateStringsArray, ...values: unknown[]) =>
    tx.$queryRaw<T[]>(strings, ...values);

export const postgresQuery =
  (tx: postgres.TransactionSql): Query =>
  async <T>(strings: TemplateStringsArray, ...values: unknown[]) =>
    [...(await tx(strings, ...(values as postgres.ParameterOrFragment<never>[])))] as T[];

export interface AbsorbResult {
  /** Dead letters re-pointed to the survivor. */
  members: number;
  /** Of those, open ones. */
  open: number;
}

/**
 * Fold `absorbedIds` (root clusters, none an alias) into `survivorId`. Members are re-pointed first,
 * then clusters are locked in id order: the order of the ingest write path and of closeDeadLetters
 * (rows, then clusters), so the three never deadlock. A cluster merged meanwhile is a conflict.
 */
export async function absorbClusters(q: Query, survivorId: string, absorbedIds: string[]): Promise<AbsorbResult> {
  const absorbed = absorbedIds.filter((id) => id !== survivorId);
  if (absorbed.length === 0) return { members: 0, open: 0 };
  const [moved] = await q<{ members: number; open: number }>`
    WITH m AS (UPDATE dead_letters SET cluster_id = ${survivorId}::uuid WHERE cluster_id = ANY(${absorbed}::uuid[]) RETURNING status)
    SELECT count(*)::int AS members, (count(*) FILTER (WHERE status = 'open'))::int AS open FROM m`;
  const locked = await q<{ id: string; merged_into_id: string | null }>`
    SELECT id::text, merged_into_id::text FROM clusters WHERE id = ANY(${[survivorId, ...absorbed]}::uuid[]) ORDER BY id FOR UPDATE`;
  if (locked.length !== absorbed.length + 1 || locked.some((c) => c.merged_into_id !== null)) {
    throw new AppError('conflict', 'One of these clusters was merged meanwhile: reload and try again');
  }
  await q`
    UPDATE clusters c SET count = c.count + a.count, open_count = c.open_count + a.open_count,
      first_seen = LEAST(c.first_seen, a.first_seen), last_seen = GREATEST(c.last_seen, a.last_seen)
    FROM (SELECT sum(count)::int AS count, sum(open_count)::int AS open_count, min(first_seen) AS first_seen, max(last_seen) AS last_seen
          FROM clusters WHERE id = ANY(${absorbed}::uuid[])) a
    WHERE c.id = ${survivorId}::uuid
    RETURNING c.id`;
  // Kept so a person can undo the fold (undo-merge.ts): what each absorbed cluster answered for.
  await recordMerges(q, survivorId, absorbed);
  // Aliases of an absorbed cluster point at the survivor directly: an alias is always one hop.
  await q`
    UPDATE clusters SET merged_into_id = ${survivorId}::uuid,
      count = CASE WHEN id = ANY(${absorbed}::uuid[]) THEN 0 ELSE count END,
      open_count = CASE WHEN id = ANY(${absorbed}::uuid[]) THEN 0 ELSE open_count END
    WHERE id = ANY(${absorbed}::uuid[]) OR merged_into_id = ANY(${absorbed}::uuid[])
    RETURNING id`;
  await q`
    WITH gone AS (DELETE FROM cluster_sources WHERE cluster_id = ANY(${absorbed}::uuid[]) RETURNING *)
    INSERT INTO cluster_sources (cluster_id, source_id, count, open_count, first_seen, last_seen)
    SELECT ${survivorId}::uuid, source_id, sum(count)::int, sum(open_count)::int, min(first_seen), max(last_seen)
    FROM gone GROUP BY source_id ORDER BY source_id
    ON CONFLICT (cluster_id, source_id) DO UPDATE SET count = cluster_sources.count + EXCLUDED.count,
      open_count = cluster_sources.open_count + EXCLUDED.open_count,
      first_seen = LEAST(cluster_sources.first_seen, EXCLUDED.first_seen),
      last_seen = GREATEST(cluster_sources.last_seen, EXCLUDED.last_seen)
    RETURNING source_id`;
  await q`
    WITH gone AS (DELETE FROM cluster_hours WHERE cluster_id = ANY(${absorbed}::uuid[]) RETURNING *)
    INSERT INTO cluster_hours (cluster_id, source_id, hour, count)
    SELECT ${survivorId}::uuid, source_id, hour, sum(count)::int FROM gone GROUP BY source_id, hour ORDER BY source_id, hour
    ON CONFLICT (cluster_id, source_id, hour) DO UPDATE SET count = cluster_hours.count + EXCLUDED.count
    RETURNING hour`;
  return { members: moved?.members ?? 0, open: moved?.open ?? 0 };
}

/** One cluster_merges row per absorbed cluster: its fingerprint and its aliases' (ids and fingerprints). */
export async function recordMerges(q: Query, survivorId: string, absorbedIds: string[]): Promise<void> {
  await q`
    INSERT INTO cluster_merges (survivor_id, absorbed_id, fingerprints, alias_ids)
    SELECT ${survivorId}::uuid, a.id, array_agg(DISTINCT m.fingerprint), coalesce(array_agg(DISTINCT m.id) FILTER (WHERE m.id <> a.id), '{}')
    FROM clusters a JOIN clusters m ON m.id = a.id OR m.merged_into_id = a.id
    WHERE a.id = ANY(${absorbedIds}::uuid[])
    GROUP BY a.id
    RETURNING id`;
}
