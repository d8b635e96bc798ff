// Authorization in the query for clusters. A cluster has no team of its own: it is seen through its
// per-source split (cluster_sources), so a team-scoped role sees a cluster when one of its team's
// sources holds members, and sees only those sources' share of its counts. Another team's cluster
// answers 404, as the dead letters themselves do.
import { z } from 'zod';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';
import { pg } from '@/lib/db';
import { visibleSources, type VisibleSource } from '@/lib/deadletters/query';
import { forbidden, notFound } from '@/lib/errors';
import type { ErrorClass } from '@/lib/model/error-classes';

export interface ClusterScope {
  sources: VisibleSource[];
  /** Source ids the actor is limited to; null: every source. */
  restrict: string[] | null;
}

export async function clusterScope(actor: Principal, permission: Permission = 'deadletters.read'): Promise<ClusterScope> {
  const sources = await visibleSources(actor, permission);
  const teamScoped = Object.keys(sourceScope(actor, permission)).length > 0;
  return { sources, restrict: teamScoped ? sources.map((s) => s.id) : null };
}

export interface ClusterRow {
  id: string;
  fingerprint: string;
  template: string;
  pattern: string | null;
  errorType: string | null;
  topFrame: string | null;
  shape: string | null;
  /** The cluster this one was split off, if it was. */
  splitFromId: string | null;
  /** A grouping rule's or a split's values that tell it apart from clusters of the same template. */
  groupedBy: string | null;
  /** What the errors of its latest arrival say (clusters.error_class). */
  errorClass: ErrorClass;
  /** The id asked for, when it was an alias merged into this cluster; else null. */
  aliasOf: string | null;
}

const clusterId = z.uuid();

/**
 * The cluster `id` names, following a merge alias to the cluster it was merged into, if the actor
 * may see it (a member in one of its sources); else 404, never 403.
 */
export async function findCluster(id: string, scope: ClusterScope): Promise<ClusterRow> {
  if (!clusterId.safeParse(id).success) throw notFound('No such cluster');
  const sql = pg();
  const [row] = await sql<(Omit<ClusterRow, 'aliasOf'> & { requested: string })[]>`
    SELECT c.id::text, c.fingerprint, c.template, c.pattern, c.error_type AS "errorType", c.top_frame AS "topFrame", c.shape,
           c.split_from_id::text AS "splitFromId", c.grouped_by AS "groupedBy", c.error_class AS "errorClass",
           r.id::text AS requested
    FROM clusters r JOIN clusters c ON c.id = coalesce(r.merged_into_id, r.id)
    WHERE r.id = ${id}::uuid`;
  if (!row) throw notFound('No such cluster');
  if (scope.restrict) {
    const [seen] = await sql<{ ok: number }[]>`
      SELECT 1 AS ok FROM cluster_sources WHERE cluster_id = ${row.id}::uuid AND source_id = ANY(${scope.restrict}::uuid[]) LIMIT 1`;
    if (!seen) throw notFound('No such cluster');
  }
  const { requested, ...cluster } = row;
  return { ...cluster, aliasOf: requested === cluster.id ? null : requested };
}

/**
 * The sources holding members of these clusters. A change that moves every member (a merge, a
 * split) is refused to a team-scoped lead when another team's source holds some: an admin makes it.
 */
export async function sourcesOfAll(scope: ClusterScope, clusters: ClusterRow[], change: 'merge' | 'split'): Promise<string[]> {
  const rows = await pg()<{ source_id: string }[]>`
    SELECT DISTINCT source_id::text FROM cluster_sources WHERE cluster_id = ANY(${clusters.map((c) => c.id)}::uuid[])`;
  const ids = rows.map((r) => r.source_id);
  if (scope.restrict && ids.some((s) => !scope.restrict!.includes(s))) {
    const which = clusters.length > 1 ? 'One of these clusters' : 'This cluster';
    throw forbidden(`${which} also holds dead letters of another team: an admin can ${change} it`);
  }
  return ids;
}
