// The ingest write path resolves each new dead letter's cluster (following aliases) before it
// inserts the rows, and counts them afterwards. A merge that commits in between (a lead's merge, or
// the second stage of another batch) has already re-pointed every member it could see, but not
// these uncommitted rows: they are re-pointed here, under the clusters' row locks, so no member is
// left on an alias and no count lands on one.
import type postgres from 'postgres';

export interface CountedRow {
  cluster_id: string | null;
  source_id: string;
  message_id: string;
  generation: number;
}

/** Lock the clusters these rows count into, in id order, and move rows off clusters merged meanwhile. */
export async function lockClustersFollowingMerges(tx: postgres.TransactionSql, created: CountedRow[]): Promise<void> {
  const ids = [...new Set(created.flatMap((r) => (r.cluster_id ? [r.cluster_id] : [])))];
  if (ids.length === 0) return;
  // NO KEY UPDATE, not UPDATE: the rows this batch (and a concurrent one) just inserted hold FOR KEY
  // SHARE on their clusters through the foreign key, which FOR UPDATE would wait on: a deadlock
  // between any two concurrent batches of the same causes.
  const locked = await tx<{ id: string; merged_into_id: string | null }[]>`
    SELECT id, merged_into_id FROM clusters WHERE id = ANY(${ids}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
  const survivorOf = new Map(locked.flatMap((c) => (c.merged_into_id ? [[c.id, c.merged_into_id] as const] : [])));
  if (survivorOf.size === 0) return;
  const moved = created.filter((r) => r.cluster_id && survivorOf.has(r.cluster_id));
  for (const r of moved) r.cluster_id = survivorOf.get(r.cluster_id!)!;
  // One batch is one source (recordDeadLetters): the key table's unique (source, message id,
  // generation) index finds each row's id and dead_at, which finds it in its partition.
  await tx`
    UPDATE dead_letters d SET cluster_id = v.cluster_id
    FROM unnest(${moved.map((r) => r.message_id)}::text[], ${moved.map((r) => r.generation)}::int[], ${moved.map((r) => r.cluster_id!)}::uuid[])
      AS v(message_id, generation, cluster_id)
    JOIN dead_letter_keys k ON k.source_id = ${moved[0]!.source_id}::uuid AND k.message_id = v.message_id AND k.generation = v.generation
    WHERE d.id = k.id AND d.dead_at = k.dead_at`;
  await tx`SELECT id FROM clusters WHERE id = ANY(${[...new Set(survivorOf.values())]}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
}
