// Deciding dead letters (archive, discard, redriven, expired) in the caller's transaction, keeping
// clusters.open_count and cluster_sources.open_count right (they are kept incrementally, never
// recounted). 'redriving' is still undecided and stays counted as open (lib/redrive). Shared by
// decisions here, redrive tasks and retention.
import type { Tx } from '@/lib/db';
import type { DeadLetterStatus } from './filters';

/** The decided statuses: leaving 'open' or 'redriving' for one of them leaves the open counts. */
export type ClosedStatus = Exclude<DeadLetterStatus, 'open' | 'redriving'>;
const COUNTED_OPEN: readonly DeadLetterStatus[] = ['open', 'redriving'];

export interface ClosedDeadLetter {
  id: bigint;
  sourceId: string;
  clusterId: string | null;
  from: DeadLetterStatus;
}

/** Statuses whose payload is deleted on entry: the row stays as a tombstone. */
const DROPS_PAYLOAD: readonly ClosedStatus[] = ['discarded', 'expired'];

/**
 * Set `to` on those of `ids` whose status is one of `from` (others are left alone: a concurrent
 * decision won), recording who decided and why; discarded and expired lose their payload and
 * payload text. Rows leaving 'open' or 'redriving' are subtracted from their cluster's open counts. Returns the rows
 * that moved. Call inside the Prisma transaction that also appends the audit event.
 */
export async function closeDeadLetters(
  tx: Tx,
  ids: readonly bigint[],
  to: ClosedStatus,
  opts: { from: readonly DeadLetterStatus[]; decidedById: string | null; reason: string | null; at?: Date },
): Promise<ClosedDeadLetter[]> {
  if (ids.length === 0) return [];
  const drop = DROPS_PAYLOAD.includes(to);
  const at = opts.at ?? new Date();
  // Rows are locked in id order, so two decisions over overlapping selections cannot deadlock.
  const moved = await tx.$queryRaw<{ id: bigint; source_id: string; cluster_id: string | null; from_status: DeadLetterStatus }[]>`
    UPDATE dead_letters d SET
      status = ${to}::"DeadLetterStatus",
      decided_by_id = ${opts.decidedById}::uuid,
      decided_at = ${at},
      decision_reason = ${opts.reason},
      payload = CASE WHEN ${drop} THEN NULL ELSE d.payload END
    FROM (
      SELECT id, dead_at, status FROM dead_letters
      WHERE id = ANY(${[...ids]}::bigint[]) AND status = ANY(${[...opts.from]}::"DeadLetterStatus"[])
      ORDER BY id FOR NO KEY UPDATE
    ) old
    -- By the partitions' primary key (id, dead_at): id alone is unique only through dead_letter_keys.
    WHERE d.id = old.id AND d.dead_at = old.dead_at
    RETURNING d.id, d.source_id, d.cluster_id, old.status::text AS from_status`;
  if (drop && moved.length) {
    // The payload's searchable text goes with it. An upsert, not an UPDATE: a row the search indexer
    // has not written yet is written here without text (the indexer then leaves it), and one it is
    // writing right now is waited for and then cleared.
    await tx.$executeRaw`
      INSERT INTO dead_letter_search (dead_letter_id, error_text)
      SELECT id, search_error_text(error_type, error_message, error_stack) FROM dead_letters WHERE id = ANY(${moved.map((m) => m.id)}::bigint[])
      ON CONFLICT (dead_letter_id) DO UPDATE SET payload_text = NULL`;
  }
  await leaveOpen(
    tx,
    moved.filter((m) => COUNTED_OPEN.includes(m.from_status)),
  );
  return moved.map((m) => ({ id: m.id, sourceId: m.source_id, clusterId: m.cluster_id, from: m.from_status }));
}

async function leaveOpen(tx: Tx, rows: { source_id: string; cluster_id: string | null }[]): Promise<void> {
  const perSplit = new Map<string, { clusterId: string; sourceId: string; n: number }>();
  for (const r of rows) {
    if (!r.cluster_id) continue;
    const k = `${r.cluster_id}|${r.source_id}`;
    const g = perSplit.get(k);
    if (g) g.n++;
    else perSplit.set(k, { clusterId: r.cluster_id, sourceId: r.source_id, n: 1 });
  }
  if (perSplit.size === 0) return;
  const splits = [...perSplit.values()].sort((a, b) => (a.clusterId + a.sourceId < b.clusterId + b.sourceId ? -1 : 1));
  const perCluster = new Map<string, number>();
  for (const s of splits) perCluster.set(s.clusterId, (perCluster.get(s.clusterId) ?? 0) + s.n);
  const clusterIds = [...perCluster.keys()];
  // Same lock order as the ingest write path (clusters by id), so the two never deadlock.
  await tx.$queryRaw`SELECT id FROM clusters WHERE id = ANY(${clusterIds}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
  await tx.$executeRaw`
    UPDATE clusters c SET open_count = c.open_count - v.n
    FROM unnest(${clusterIds}::uuid[], ${[...perCluster.values()]}::int[]) AS v(id, n)
    WHERE c.id = v.id`;
  await tx.$executeRaw`
    UPDATE cluster_sources cs SET open_count = cs.open_count - v.n
    FROM unnest(${splits.map((s) => s.clusterId)}::uuid[], ${splits.map((s) => s.sourceId)}::uuid[], ${splits.map((s) => s.n)}::int[])
      AS v(cluster_id, source_id, n)
    WHERE cs.cluster_id = v.cluster_id AND cs.source_id = v.source_id`;
}
