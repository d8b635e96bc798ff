// One cluster as its page shows it: the readable template and what it merged, error type and top
// frame, per-source counts, a few sample messages and the hourly trend, all within the actor's
// sources. Its members are the dead-letter list with clusterId (lib/deadletters/list-dead-letters).
import { authorize, type Principal } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { readDb, retriedOnPrimary } from '@/lib/db/replica';
import { headSql, maskedHead, maskErrorText } from '@/lib/masking';
import { z } from 'zod';
import { DEAD_LETTER_STATUSES, type DeadLetterStatus } from '@/lib/enums';
import { isoTime } from '@/lib/wire';
import { clusterVerdict } from './cluster-verdict';
import { clusterScope, findCluster } from './cluster-scope';
import { ERROR_CLASSES } from '@/lib/model/error-classes';
import { HourlySeries, hourlySeries, ratePerHour } from './cluster-hours';
import { ClusterSource, ClusterSummary, SPARKLINE_HOURS } from './list-clusters';

export const ClusterSourceSplit = ClusterSource.extend({ count: z.int(), openCount: z.int(), firstSeen: isoTime, lastSeen: isoTime });
export type ClusterSourceSplit = z.infer<typeof ClusterSourceSplit>;

export const ClusterSample = z.object({
  id: z.string(),
  source: z.string(),
  status: z.enum(DEAD_LETTER_STATUSES),
  errorType: z.string().nullable(),
  errorMessage: z.string().nullable(),
  deadAt: isoTime,
});
export type ClusterSample = z.infer<typeof ClusterSample>;

/** The fields it shares with the list's summary, as the summary has them; the rest are the detail's own. */
export const ClusterDetail = ClusterSummary.pick({ id: true, fingerprint: true, errorType: true, verdict: true, openCount: true }).extend({
  template: z.string().describe('The readable template (the merged pattern once other fingerprints joined)'),
  firstTemplate: z.string().describe('Template of the fingerprint the cluster started from'),
  topFrame: z.string().nullable(),
  errorClass: z.enum(ERROR_CLASSES).describe('What the errors of its latest arrival say: transient, permanent or unknown'),
  groupedBy: z.string().nullable().describe("A grouping rule's or a split's values that tell it apart"),
  splitFromId: z.uuid().nullable().describe('The cluster this one was split off, if it was'),
  aliasOf: z.uuid().nullable().describe('The id asked for, when it was an alias merged into this cluster'),
  count: z.int(),
  firstSeen: isoTime.nullable(),
  lastSeen: isoTime.nullable(),
  ratePerHour: z.int(),
  sparkline: z.array(z.int()),
  sources: z.array(ClusterSourceSplit),
  merged: z
    .array(z.object({ id: z.uuid(), fingerprint: z.string(), template: z.string() }))
    .describe('Fingerprints merged into it (by the second stage or a lead)'),
  samples: z.array(ClusterSample).describe('Recent distinct messages'),
  trend: HourlySeries.describe('Dead letters per hour over 7 days, oldest first'),
});
export type ClusterDetail = z.infer<typeof ClusterDetail>;

export const TREND_HOURS = 7 * 24;
const SAMPLES = 5;
/** A sample's message is cut to this many characters (masked before the cut). */
const SAMPLE_CHARS = 1000;
/** Recent members looked at per status for distinct sample messages. */
const SAMPLE_WINDOW = 20;

async function getClusterOnce(actor: Principal, id: string, opts: { clock?: Clock } = {}): Promise<ClusterDetail> {
  authorize(actor, 'deadletters.read');
  const now = (opts.clock ?? systemClock).now();
  const scope = await clusterScope(actor);
  const cluster = await findCluster(id, scope);
  const sql = await readDb(actor);
  const inScope = scope.restrict ? sql`AND source_id = ANY(${scope.restrict}::uuid[])` : sql``;
  const names = new Map(scope.sources.map((s) => [s.id, s.name]));

  const splits = await sql<{ source_id: string; count: number; open_count: number; first_seen: Date; last_seen: Date }[]>`
    SELECT source_id::text, count, open_count, first_seen, last_seen FROM cluster_sources
    WHERE cluster_id = ${cluster.id}::uuid ${inScope} ORDER BY last_seen DESC`;
  const merged = await sql<{ id: string; fingerprint: string; template: string }[]>`
    SELECT id::text, fingerprint, template FROM clusters WHERE merged_into_id = ${cluster.id}::uuid ORDER BY created_at, id LIMIT 100`;
  // One index-ordered branch per status (cluster_id, status, dead_at): no sort of a whole wave.
  const branches = DEAD_LETTER_STATUSES.map(
    (
      status,
    ) => sql`(SELECT id, source_id::text, status::text, error_type, ${sql.unsafe(headSql('error_message', 'text_masked', SAMPLE_CHARS))} AS error_message, dead_at FROM dead_letters
       WHERE cluster_id = ${cluster.id}::uuid AND status = ${status}::"DeadLetterStatus" ${inScope}
       ORDER BY dead_at DESC, id DESC LIMIT ${SAMPLE_WINDOW})`,
  );
  const recent = await sql<
    { id: bigint; source_id: string; status: DeadLetterStatus; error_type: string | null; error_message: string | null; dead_at: Date }[]
  >`
    SELECT * FROM (${branches.reduce((a, b) => sql`${a} UNION ALL ${b}`)}) r ORDER BY dead_at DESC, id DESC`;
  const seen = new Set<string>();
  const samples: ClusterSample[] = [];
  for (const r of recent) {
    const text = r.error_message ?? '';
    if (seen.has(text) || samples.length === SAMPLES) continue;
    // Sample messages and templates get the one masking of error text (lib/masking) without reveal.
    seen.add(text);
    samples.push({
      id: r.id.toString(),
      source: names.get(r.source_id) ?? r.source_id,
      status: r.status,
      errorType: r.error_type,
      errorMessage: maskedHead(r.error_message, SAMPLE_CHARS),
      deadAt: r.dead_at.toISOString(),
    });
  }

  const trend = (await hourlySeries([cluster.id], { now, hours: TREND_HOURS, restrict: scope.restrict, sql })).get(cluster.id)!;
  const day = { from: new Date(trend.from.getTime() + (TREND_HOURS - SPARKLINE_HOURS) * 3_600_000), counts: trend.counts.slice(-SPARKLINE_HOURS) };
  const first = splits.reduce<Date | null>((m, s) => (m && m < s.first_seen ? m : s.first_seen), null);
  const last = splits.reduce<Date | null>((m, s) => (m && m > s.last_seen ? m : s.last_seen), null);
  return {
    id: cluster.id,
    fingerprint: cluster.fingerprint,
    template: maskErrorText(cluster.pattern ?? cluster.template)!,
    firstTemplate: maskErrorText(cluster.template)!,
    errorType: cluster.errorType,
    topFrame: cluster.topFrame,
    errorClass: cluster.errorClass,
    // Never seen in the actor's sources (a cluster of others'): not arriving for them.
    verdict: clusterVerdict(cluster.errorClass, last ?? new Date(0), now),
    groupedBy: cluster.groupedBy == null ? cluster.groupedBy : (maskErrorText(cluster.groupedBy) ?? null),
    splitFromId: cluster.splitFromId,
    aliasOf: cluster.aliasOf,
    count: splits.reduce((n, s) => n + s.count, 0),
    openCount: splits.reduce((n, s) => n + s.open_count, 0),
    firstSeen: first?.toISOString() ?? null,
    lastSeen: last?.toISOString() ?? null,
    ratePerHour: ratePerHour(day, now),
    sparkline: day.counts,
    sources: splits.map((s) => ({
      id: s.source_id,
      name: names.get(s.source_id) ?? s.source_id,
      count: s.count,
      openCount: s.open_count,
      firstSeen: s.first_seen.toISOString(),
      lastSeen: s.last_seen.toISOString(),
    })),
    merged: merged.map((m) => ({ ...m, template: maskErrorText(m.template)! })),
    samples,
    trend,
  };
}

/** getCluster, once more on the primary if the replica goes away under it (lib/db/replica.ts). */
export const getCluster = retriedOnPrimary(getClusterOnce);
