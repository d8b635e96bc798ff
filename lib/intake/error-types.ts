// The error types each source's dead letters have had (source_error_types), which the list's
// error-type filter resolves its text against (lib/deadletters/query.ts) instead of probing
// dead_letters' index over every partition. The writer keeps it: each process writes a type once,
// after the batch's cluster locks, known once committed. The maintenance cycle repairs it from
// dead_letters (a rolling deploy's old writers, a raw load), so a type missing for a while is found
// again. A superset: retention leaves types whose rows are gone (their branch finds nothing).
import type postgres from 'postgres';
import { ERROR_TYPES_PER_SOURCE } from '@/lib/deadletters/query';

/** "source|type" keys this process has written (committed); cleared when large, as the insert is idempotent. */
const known = new Set<string>();
const KNOWN_MAX = 50_000;

/** The keys of these types not yet written by this process. */
function unknownKeys(sourceId: string, types: Iterable<string | null>): string[] {
  if (known.size > KNOWN_MAX) known.clear();
  const fresh = new Set<string>();
  for (const t of types) {
    if (t === null) continue;
    const k = `${sourceId}|${t}`;
    if (!known.has(k)) fresh.add(k);
  }
  return [...fresh];
}

/**
 * Within the writer's transaction, last (after the cluster locks, so two batches of new types never
 * hold one and wait for the other): the types of the rows it created. Returns the keys written, for
 * `rememberErrorTypes` once the transaction has committed.
 */
export async function noteErrorTypes(tx: postgres.TransactionSql, sourceId: string, types: Iterable<string | null>): Promise<string[]> {
  const keys = unknownKeys(sourceId, types);
  if (keys.length === 0) return [];
  const names = keys.map((k) => k.slice(sourceId.length + 1)).sort();
  await tx`INSERT INTO source_error_types (source_id, error_type)
           SELECT ${sourceId}::uuid, t FROM unnest(${names}::text[]) AS t
           ON CONFLICT DO NOTHING`;
  return keys;
}

/** After the commit: these types need not be written again by this process. */
export function rememberErrorTypes(keys: string[]): void {
  for (const k of keys) known.add(k);
}

/**
 * Types stored in dead_letters but missing from the summary, added: a skip scan of each source's
 * (source_id, error_type) index, at most one past the filter's cap per source (past it the filter
 * does not resolve types). Returns how many were added.
 */
export async function repairErrorTypes(sql: postgres.Sql): Promise<number> {
  const added = await sql`
    INSERT INTO source_error_types (source_id, error_type)
    SELECT s.id, t.error_type FROM sources s, LATERAL (
      WITH RECURSIVE t(error_type, k) AS (
        (SELECT d.error_type, 1 FROM dead_letters d WHERE d.source_id = s.id AND d.error_type IS NOT NULL ORDER BY d.error_type LIMIT 1)
        UNION ALL
        SELECT (SELECT d.error_type FROM dead_letters d WHERE d.source_id = s.id AND d.error_type > t.error_type ORDER BY d.error_type LIMIT 1), t.k + 1
        FROM t WHERE t.error_type IS NOT NULL AND t.k <= ${ERROR_TYPES_PER_SOURCE})
      SELECT error_type FROM t WHERE error_type IS NOT NULL) t
    ORDER BY 1, 2
    ON CONFLICT DO NOTHING`;
  return added.count;
}
