// The regression reopen, apart from the rest of lib/ownership: ingest calls it, and it needs only
// the database and the audit write (no cluster scope, no notifications).
import { append } from '@/lib/audit/append';
import { systemClock, type Clock } from '@/lib/clock';
import { db, pg } from '@/lib/db';

/**
 * New dead letters in a resolved cluster reopen it: a regression, kept on the cluster (regressed_at)
 * and on the audit trail, both in one transaction. Called after an ingest batch commits, with the
 * clusters the batch counted into; the common case (none resolved) is one indexed read.
 */
export async function reopenRegressions(clusterIds: string[], clock: Clock = systemClock): Promise<string[]> {
  if (clusterIds.length === 0) return [];
  const resolved = await pg()<{ cluster_id: string }[]>`
    SELECT cluster_id::text FROM cluster_ownership WHERE status = 'resolved' AND cluster_id = ANY(${clusterIds}::uuid[])`;
  if (resolved.length === 0) return [];
  const now = clock.now();
  return db().$transaction(async (tx) => {
    const reopened = await tx.$queryRaw<{ cluster_id: string; fix_version: string | null }[]>`
      UPDATE cluster_ownership o SET status = 'open', regressed_at = ${now}, updated_at = ${now}
      FROM (SELECT cluster_id, fix_version FROM cluster_ownership WHERE cluster_id = ANY(${resolved.map((r) => r.cluster_id)}::uuid[]) AND status = 'resolved' FOR UPDATE) old
      WHERE o.cluster_id = old.cluster_id
      RETURNING o.cluster_id::text, old.fix_version`;
    for (const r of reopened) {
      const srcs = await tx.$queryRaw<{ source_id: string; team_id: string }[]>`
        SELECT cs.source_id::text, s.team_id::text FROM cluster_sources cs JOIN sources s ON s.id = cs.source_id WHERE cs.cluster_id = ${r.cluster_id}::uuid`;
      const teams = new Set(srcs.map((s) => s.team_id));
      await append(
        tx,
        {
          actor: { userId: null, email: 'system', role: 'system' },
          action: 'cluster.regression',
          targetType: 'cluster',
          targetId: r.cluster_id,
          teamId: teams.size === 1 ? [...teams][0]! : null,
          sourceId: srcs.length === 1 ? srcs[0]!.source_id : null,
          reason: 'New dead letters arrived in a resolved cluster',
          before: { status: 'resolved', fixVersion: r.fix_version },
          after: { status: 'open', regressedAt: now.toISOString() },
        },
        clock,
      );
    }
    return reopened.map((r) => r.cluster_id);
  });
}
