// Archive a whole cluster: every open member in the sources the actor may archive in, in one
// transaction with one audit event naming the selection ({ cluster }) and the count. Members leave
// 'open' through closeDeadLetters, so the kept open counts stay right. Bounded like every bulk
// decision (MAX_BULK): a bigger cluster is archived source by source, or redriven.
import { z } from 'zod';
import { Prisma } from '@/generated/prisma/client';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, type Principal } from '@/lib/auth';
import { db } from '@/lib/db';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import { MAX_BULK, reasonSchema } from '@/lib/deadletters/decide';
import { notFound, unprocessable } from '@/lib/errors';
import { clusterScope, findCluster, type ClusterScope } from './cluster-scope';

export const archiveClusterInput = z
  .object({ reason: reasonSchema, source: z.string().min(1).max(63).optional().describe('Only the members in this source (by name)') })
  .strict();
export type ArchiveClusterInput = z.input<typeof archiveClusterInput>;

/** Members closed per statement: bounded lock batches inside the one transaction. */
const CHUNK = 2_000;
const TRANSACTION_TIMEOUT_MS = 2 * 60_000;

export const ClusterDecision = z.object({ clusterId: z.uuid(), count: z.int() });
export type ClusterDecision = z.infer<typeof ClusterDecision>;

/** The team and source an audit event is filed under: the one the touched sources share, if any. */
export function auditPlace(scope: ClusterScope, sourceIds: Iterable<string>): { teamId: string | null; sourceId: string | null } {
  const ids = [...new Set(sourceIds)];
  const teams = new Set(scope.sources.filter((s) => ids.includes(s.id)).map((s) => s.teamId));
  return { teamId: teams.size === 1 ? [...teams][0]! : null, sourceId: ids.length === 1 ? ids[0]! : null };
}

export async function archiveCluster(actor: Principal, id: string, input: ArchiveClusterInput): Promise<ClusterDecision> {
  authorize(actor, 'deadletters.archive');
  const { reason, source } = archiveClusterInput.parse(input);
  const scope = await clusterScope(actor, 'deadletters.archive');
  const cluster = await findCluster(id, scope);
  let restrict = scope.restrict;
  if (source) restrict = scope.sources.filter((s) => s.name === source && (!restrict || restrict.includes(s.id))).map((s) => s.id);
  if (restrict?.length === 0) throw notFound(`No source "${source}"`);
  const inScope = restrict ? Prisma.sql`AND source_id = ANY(${restrict}::uuid[])` : Prisma.empty;
  return db().$transaction(
    async (tx) => {
      const open = await tx.$queryRaw<{ id: bigint }[]>`
        SELECT id FROM dead_letters WHERE cluster_id = ${cluster.id}::uuid AND status = 'open' ${inScope}
        ORDER BY id LIMIT ${MAX_BULK + 1}`;
      if (open.length > MAX_BULK) {
        throw unprocessable(`This cluster holds more than ${MAX_BULK} open dead letters: archive it source by source, or redrive it`, { limit: MAX_BULK });
      }
      let count = 0;
      const sources = new Set<string>();
      const decidedById = isSystem(actor) ? null : actor.userId;
      for (let i = 0; i < open.length; i += CHUNK) {
        const ids = open.slice(i, i + CHUNK).map((r) => r.id);
        const moved = await closeDeadLetters(tx, ids, 'archived', { from: ['open'], decidedById, reason });
        count += moved.length;
        for (const m of moved) sources.add(m.sourceId);
      }
      if (count === 0) throw unprocessable('Nothing to archive: this cluster has no open dead letters you may archive');
      await append(tx, {
        actor: auditActor(actor),
        action: 'cluster.archive',
        targetType: 'cluster',
        targetId: cluster.id,
        ...auditPlace(scope, sources),
        selection: source ? { cluster: cluster.id, source } : { cluster: cluster.id },
        count,
        reason,
      });
      return { clusterId: cluster.id, count };
    },
    { timeout: TRANSACTION_TIMEOUT_MS },
  );
}
