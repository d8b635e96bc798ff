// Undoing a merge: a cluster folded into another (a lead's merge, or the second stage at
// ingest) gets its own id, aliases and members back. Members are found by fingerprint, the key they
// were stored under, so those that arrived after the merge (counted into the survivor) go back too;
// counts move with them (moveMembers). Audited with both clusters' counts before and after.
import { z } from 'zod';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { db, pg } from '@/lib/db';
import { reasonSchema } from '@/lib/deadletters/decide';
import { AppError, forbidden, notFound } from '@/lib/errors';
import { prismaQuery } from './absorb-clusters';
import { auditPlace } from './archive-cluster';
import { clusterScope, findCluster } from './cluster-scope';
import { lockShapes } from './merge-new-clusters';
import { clusterCounts, moveMembers } from './move-members';

export const undoMergeInput = z.object({ reason: reasonSchema }).strict();
export type UndoMergeInput = z.input<typeof undoMergeInput>;

export const UndoneMerge = z.object({
  clusterId: z.uuid().describe('The cluster restored'),
  from: z.uuid().describe('The cluster it had been merged into'),
  count: z.int().describe('Dead letters moved back'),
});
export type UndoneMerge = z.infer<typeof UndoneMerge>;

const TRANSACTION_TIMEOUT_MS = 5 * 60_000;

/** Undo the merge of cluster `id` (the one merged away, now an alias) out of the cluster it went into. */
export async function undoMerge(actor: Principal, id: string, input: UndoMergeInput): Promise<UndoneMerge> {
  authorize(actor, 'clusters.split');
  const { reason } = undoMergeInput.parse(input);
  const scope = await clusterScope(actor, 'clusters.split');
  // findCluster follows the alias: the actor must see the survivor, which holds the members.
  const survivor = await findCluster(id, scope);
  if (!survivor.aliasOf) throw notFound('This cluster was not merged into another: nothing to undo');
  const rows = await pg()<{ source_id: string }[]>`SELECT source_id::text FROM cluster_sources WHERE cluster_id = ${survivor.id}::uuid`;
  const sources = rows.map((r) => r.source_id);
  if (scope.restrict && sources.some((s) => !scope.restrict!.includes(s))) {
    throw forbidden('This cluster also holds dead letters of another team: an admin can undo its merge');
  }
  return db().$transaction(
    async (tx) => {
      const q = prismaQuery(tx);
      if (survivor.shape) await lockShapes(q, [survivor.shape]);
      const [merge] = await q<{ id: bigint; fingerprints: string[]; alias_ids: string[] }>`
        SELECT id, fingerprints, alias_ids::text[] AS alias_ids FROM cluster_merges
        WHERE absorbed_id = ${id}::uuid AND survivor_id = ${survivor.id}::uuid AND undone_at IS NULL
        ORDER BY id DESC LIMIT 1`;
      if (!merge) throw new AppError('conflict', 'No record of this merge (it happened before merges were kept): split the cluster by a field instead');
      const before = await clusterCounts(q, [survivor.id, id]);
      await q`UPDATE clusters SET merged_into_id = NULL WHERE id = ${id}::uuid AND merged_into_id = ${survivor.id}::uuid RETURNING id`;
      await q`UPDATE clusters SET merged_into_id = ${id}::uuid WHERE id = ANY(${merge.alias_ids}::uuid[]) AND merged_into_id = ${survivor.id}::uuid RETURNING id`;
      const members = await q<{ id: bigint }>`
        SELECT id FROM dead_letters WHERE cluster_id = ${survivor.id}::uuid AND fingerprint = ANY(${merge.fingerprints}::text[])`;
      const moved = await moveMembers(
        q,
        members.map((m) => m.id),
        id,
      );
      await q`UPDATE cluster_merges SET undone_at = now() WHERE id = ${merge.id} RETURNING id`;
      const after = await clusterCounts(q, [survivor.id, id]);
      await append(tx, {
        actor: auditActor(actor),
        action: 'cluster.unmerge',
        targetType: 'cluster',
        targetId: id,
        ...auditPlace(scope, sources),
        selection: { cluster: id, from: survivor.id },
        count: moved.members,
        reason,
        before: { cluster: { id, mergedInto: survivor.id, ...before[id] }, from: { id: survivor.id, ...before[survivor.id] } },
        after: { cluster: { id, ...after[id] }, from: { id: survivor.id, ...after[survivor.id] } },
      });
      return { clusterId: id, from: survivor.id, count: moved.members };
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}

/** Merges into this cluster that can be undone: what the page offers. */
export async function undoableMerges(clusterId: string): Promise<{ id: string; template: string; mergedAt: Date }[]> {
  return pg()<{ id: string; template: string; mergedAt: Date }[]>`
    SELECT DISTINCT ON (m.absorbed_id) m.absorbed_id::text AS id, coalesce(c.pattern, c.template) AS template, m.merged_at AS "mergedAt"
    FROM cluster_merges m JOIN clusters c ON c.id = m.absorbed_id
    WHERE m.survivor_id = ${clusterId}::uuid AND m.undone_at IS NULL AND c.merged_into_id = ${clusterId}::uuid
    ORDER BY m.absorbed_id, m.id DESC LIMIT 50`;
}
