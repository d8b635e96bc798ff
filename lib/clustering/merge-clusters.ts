// A lead's merge: two clusters the fingerprint kept apart are one cause. The merged cluster stays as
// an alias of the other (merged_into_id), so new arrivals with its fingerprint count into the
// survivor; its members are re-pointed and its counts moved (absorbClusters). Audited in the same
// transaction.
import { z } from 'zod';
import { append } from '@/lib/audit';
import { auditActor, authorize, type Principal } from '@/lib/auth';
import { db } from '@/lib/db';
import { reasonSchema } from '@/lib/deadletters/decide';
import { AppError } from '@/lib/errors';
import { absorbClusters, prismaQuery } from './absorb-clusters';
import { clusterScope, findCluster, sourcesOfAll } from './cluster-scope';
import { ClusterDecision, auditPlace } from './archive-cluster';
import { lockShapes } from './merge-new-clusters';

export const mergeClusterInput = z
  .object({
    into: z.uuid().describe('The cluster that stays'),
    reason: reasonSchema,
  })
  .strict();
export type MergeClusterInput = z.input<typeof mergeClusterInput>;

export const ClusterMerge = ClusterDecision.extend({ into: z.uuid().describe('The cluster that stays') });
export type ClusterMerge = z.infer<typeof ClusterMerge>;

const TRANSACTION_TIMEOUT_MS = 5 * 60_000;

/** Merge cluster `id` into `input.into`; returns the survivor and how many dead letters moved. */
export async function mergeClusters(actor: Principal, id: string, input: MergeClusterInput): Promise<ClusterMerge> {
  authorize(actor, 'clusters.merge');
  const { into, reason } = mergeClusterInput.parse(input);
  const scope = await clusterScope(actor, 'clusters.merge');
  const from = await findCluster(id, scope);
  const target = await findCluster(into, scope);
  if (from.id === target.id) throw new AppError('conflict', 'These clusters are already one');
  const sources = await sourcesOfAll(scope, [from, target], 'merge');
  return db().$transaction(
    async (tx) => {
      const q = prismaQuery(tx);
      // The second stage at ingest merges under the same per-shape locks: the two never cross.
      await lockShapes(
        q,
        [from.shape, target.shape].flatMap((s) => (s ? [s] : [])),
      );
      const counts = await q<{ id: string; count: number; open_count: number }>`
        SELECT id::text, count, open_count FROM clusters WHERE id = ANY(${[from.id, target.id]}::uuid[])`;
      const before = Object.fromEntries(counts.map((c) => [c.id, { count: c.count, openCount: c.open_count }]));
      const moved = await absorbClusters(q, target.id, [from.id]);
      const [after] = await q<{ count: number; open_count: number }>`SELECT count, open_count FROM clusters WHERE id = ${target.id}::uuid`;
      await append(tx, {
        actor: auditActor(actor),
        action: 'cluster.merge',
        targetType: 'cluster',
        targetId: from.id,
        ...auditPlace(scope, sources),
        selection: { cluster: from.id, into: target.id },
        count: moved.members,
        reason,
        before: { cluster: { id: from.id, template: from.pattern ?? from.template, ...before[from.id] }, into: { id: target.id, ...before[target.id] } },
        after: { into: { id: target.id, count: after?.count, openCount: after?.open_count }, cluster: { id: from.id, mergedInto: target.id } },
      });
      return { clusterId: from.id, into: target.id, count: moved.members };
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}
