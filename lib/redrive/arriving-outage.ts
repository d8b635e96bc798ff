// Whether a redrive would send into a downstream that is still broken (seed 004 §9: do not redrive
// while an outage's errors keep arriving). One rule for every selection kind (ids, cluster, filter,
// source), read by the preview's warning and by the start, which then wants a lead's confirmation:
// the selected open dead letters include some of a cluster whose latest arrival is transient and
// recent (lib/clustering/cluster-verdict.ts), or their source's alarms say outage (lib/model/alarm-rules.ts).
import { z } from 'zod';
import type { Tx } from '@/lib/db';
import { ClusterVerdict, clusterVerdict, outageQuietMs } from '@/lib/clustering/cluster-verdict';
import { ERROR_CLASSES, type ErrorClass } from '@/lib/model/error-classes';
import { isoTime } from '@/lib/wire';
import type { ResolvedSelection } from './selection';

export const OUTAGE_CAUSES = ['cluster', 'source alarm'] as const;

export const RedriveOutage = z
  .object({
    cause: z
      .enum(OUTAGE_CAUSES)
      .describe("cluster: some selected dead letters belong to a cluster whose transient errors still arrive; source alarm: the source's alarms say outage"),
    clusterId: z
      .uuid()
      .nullable()
      .describe("The arriving outage's cluster; for a source alarm, the cluster most of its arrivals were of (null when none dominated)"),
    errorClass: z.enum(ERROR_CLASSES),
    verdict: ClusterVerdict,
    lastSeen: isoTime.describe('When its latest transient error arrived (a source alarm: when the alarm last said outage)'),
  })
  .describe('The selection holds dead letters of an outage whose errors still arrive: a start needs outageConfirmed and a reason, by a lead');
export type RedriveOutage = z.infer<typeof RedriveOutage>;

export interface OutageEvidence {
  /** Transient clusters the selected open dead letters belong to, latest arrival first. */
  clusters: { id: string; errorClass: ErrorClass; lastSeen: Date }[];
  /** The source's alarm rows that carry a label (a row at OK carries none). */
  sourceAlarms: { label: string | null; evaluatedAt: Date; dominantClusterId: string | null }[];
}

/** The rule, pure: an arriving cluster first (it names the cause), else the source's own alarm. */
export function outageOf(e: OutageEvidence, now: Date): RedriveOutage | null {
  for (const c of e.clusters) {
    if (clusterVerdict(c.errorClass, c.lastSeen, now) === 'outage') {
      return { cause: 'cluster', clusterId: c.id, errorClass: c.errorClass, verdict: 'outage', lastSeen: c.lastSeen.toISOString() };
    }
  }
  const alarm = e.sourceAlarms.filter((a) => a.label === 'outage').sort((a, b) => b.evaluatedAt.getTime() - a.evaluatedAt.getTime())[0];
  if (!alarm) return null;
  return { cause: 'source alarm', clusterId: alarm.dominantClusterId, errorClass: 'transient', verdict: 'outage', lastSeen: alarm.evaluatedAt.toISOString() };
}

/** The evidence for a resolved selection, read in the caller's transaction. */
export async function arrivingOutage(tx: Tx, r: ResolvedSelection, now: Date): Promise<RedriveOutage | null> {
  const since = new Date(now.getTime() - outageQuietMs());
  const clusters = await latestTransientCluster(tx, r, since);
  const sourceAlarms = await tx.$queryRaw<{ label: string | null; evaluatedAt: Date; dominantClusterId: string | null }[]>`
    SELECT label, COALESCE(evaluated_at, since) AS "evaluatedAt", detail->>'dominantClusterId' AS "dominantClusterId"
    FROM alarm_states WHERE source_id = ${r.source.id}::uuid AND label IS NOT NULL`;
  return outageOf({ clusters, sourceAlarms }, now);
}

/**
 * A cluster of the selection classified an outage (its latest arrival transient), arriving or
 * stopped: the start through an assistant refuses it, since only a person can say the downstream is
 * healthy again. The same walk as arrivingOutage, without its time bound.
 */
export async function outageCluster(tx: Tx, r: ResolvedSelection, now: Date): Promise<{ id: string; verdict: ClusterVerdict } | null> {
  const [c] = await latestTransientCluster(tx, r, null);
  return c ? { id: c.id, verdict: clusterVerdict(c.errorClass, c.lastSeen, now) } : null;
}

/**
 * The selection's most recent transient cluster (last seen after `since`, when given): from the few
 * clusters that can be outages to the selection, not from every selected dead letter to its
 * cluster. Dead letters of a cluster merged into another count for the one they were merged into.
 */
function latestTransientCluster(tx: Tx, r: ResolvedSelection, since: Date | null) {
  return tx.$queryRaw<{ id: string; errorClass: ErrorClass; lastSeen: Date }[]>`
    SELECT c.id::text AS id, c.error_class AS "errorClass", c.last_seen AS "lastSeen" FROM clusters c
    WHERE c.error_class = 'transient' AND (${since}::timestamptz IS NULL OR c.last_seen > ${since}::timestamptz)
      AND EXISTS (
        SELECT 1 FROM dead_letters d
        WHERE d.source_id = ${r.source.id}::uuid AND d.status = 'open' AND ${r.where}
          AND d.cluster_id IN (SELECT m.id FROM clusters m WHERE m.id = c.id OR m.merged_into_id = c.id))
    ORDER BY c.last_seen DESC
    LIMIT 1`;
}
