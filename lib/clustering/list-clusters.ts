// The cluster list, support's inbox: clusters of the sources the actor may read, newest wave first
// (last seen), with kept counts, the rate now and a 24-hour sparkline. Reads kept aggregates only
// (clusters, cluster_sources, cluster_hours), never dead_letters, so a page costs the same at a
// million dead letters as at ten. Never mutates.
import { z } from 'zod';
import type { Principal } from '@/lib/auth';
import { authorize } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { readDb, retriedOnPrimary } from '@/lib/db/replica';
import { AppError } from '@/lib/errors';
import { isoTime } from '@/lib/wire';
import { maskErrorText } from '@/lib/masking';
import { errorTypeFilter, filterQueryString, oneOrMany } from '@/lib/deadletters/filters';
import { likePattern } from '@/lib/deadletters/query';
import { OWNER_FILTERS, OWNERSHIP_STATUSES, type OwnershipStatus } from '@/lib/model/ownership-statuses';
import { ClusterVerdict, clusterVerdict } from './cluster-verdict';
import { clusterScope } from './cluster-scope';
import { ERROR_CLASSES, type ErrorClass } from '@/lib/model/error-classes';
import { hourlySeries, ratePerHour } from './cluster-hours';

export const clusterFilters = z
  .object({
    source: oneOrMany(z.string().min(1).max(63)).optional().describe('Source names'),
    errorType: errorTypeFilter,
    q: z.string().trim().min(1).max(200).optional().describe('Text in the template'),
    state: z.enum(['open', 'all']).default('open').describe('open: clusters with open dead letters (default); all: every cluster'),
    owner: z.enum(OWNER_FILTERS).optional().describe('mine: assigned to the caller; unassigned; on_hold'),
    ownerStatus: z.enum(OWNERSHIP_STATUSES).optional().describe('The ownership status (lib/ownership)'),
  })
  .describe('Cluster filters');

export type ClusterFilters = z.output<typeof clusterFilters>;
export type ClusterFiltersInput = z.input<typeof clusterFilters>;
export const CLUSTER_FILTER_KEYS = Object.keys(clusterFilters.shape) as (keyof ClusterFilters)[];

export const ClusterSource = z.object({ id: z.uuid(), name: z.string() });
export type ClusterSource = z.infer<typeof ClusterSource>;

export const ClusterSummary = z.object({
  id: z.uuid(),
  fingerprint: z.string(),
  template: z.string().describe('The readable template: variable parts as <*>'),
  groupedBy: z
    .string()
    .nullable()
    .describe("What tells it apart from clusters of the same template: a grouping rule's or a split's values, e.g. $.type=order.created"),
  errorType: z.string().nullable(),
  topFrame: z.string().nullable().describe('Top in-app stack frame: function (file)'),
  errorClass: z
    .enum(ERROR_CLASSES)
    .describe('What the errors of its latest arrival say: transient (the downstream failed), permanent (the message is bad) or unknown'),
  verdict: ClusterVerdict,
  count: z.int().describe("Dead letters in the caller's sources, all statuses"),
  openCount: z.int(),
  firstSeen: isoTime,
  lastSeen: isoTime,
  ratePerHour: z.int().describe('Dead letters per hour now (sliding 60 minutes)'),
  sparkline: z.array(z.int()).describe('Dead letters per hour over the last 24 hours, oldest first'),
  sources: z.array(ClusterSource),
  ownership: z
    .object({ status: z.enum(OWNERSHIP_STATUSES), assignee: z.string().nullable(), holdUntil: isoTime.nullable(), regressedAt: isoTime.nullable() })
    .describe('Who is on it and where it stands (no row yet: open, unassigned); GET /api/v1/clusters/{id}/ownership for the whole of it'),
});
export type ClusterSummary = z.infer<typeof ClusterSummary>;

export const ClusterPage = z.object({ clusters: z.array(ClusterSummary), nextCursor: z.string().nullable() });
export type ClusterPage = z.infer<typeof ClusterPage>;

export const SPARKLINE_HOURS = 24;
export const MAX_CLUSTER_PAGE = 200;

/** GET /api/v1/clusters's query string: the filters, the keyset cursor and the page size. */
export const clusterListQuery = clusterFilters.extend({
  cursor: z.string().optional().describe('nextCursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(MAX_CLUSTER_PAGE).default(50).describe('Page size'),
});

interface Cursor {
  lastSeen: Date;
  id: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(`${c.lastSeen.getTime()}.${c.id}`).toString('base64url');

function decodeCursor(s: string): Cursor {
  const m = /^(\d{1,15})\.([0-9a-f-]{36})$/.exec(Buffer.from(s, 'base64url').toString());
  if (!m) throw new AppError('bad_request', 'cursor is not valid: pass nextCursor from a previous page', { field: 'cursor' });
  return { lastSeen: new Date(Number(m[1])), id: m[2]! };
}

interface Row {
  id: string;
  fingerprint: string;
  template: string;
  grouped_by: string | null;
  error_type: string | null;
  top_frame: string | null;
  error_class: ErrorClass;
  count: number;
  open_count: number;
  first_seen: Date;
  last_seen: Date;
  sources: string[];
  o_status: string | null;
  o_assignee: string | null;
  o_hold_until: Date | null;
  o_regressed_at: Date | null;
}

/** One page of clusters, newest wave first. `cursor` is the previous page's nextCursor. */
async function listClustersOnce(
  actor: Principal,
  filters: ClusterFiltersInput = {},
  cursor?: string | null,
  opts: { limit?: number; clock?: Clock } = {},
): Promise<ClusterPage> {
  authorize(actor, 'deadletters.read');
  const f = clusterFilters.parse(filters);
  const after = cursor ? decodeCursor(cursor) : undefined;
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_CLUSTER_PAGE);
  const now = (opts.clock ?? systemClock).now();
  const scope = await clusterScope(actor);
  let restrict = scope.restrict;
  if (f.source) restrict = scope.sources.filter((s) => f.source!.includes(s.name)).map((s) => s.id);
  if (restrict?.length === 0) return { clusters: [], nextCursor: null };

  const sql = await readDb(actor);
  const mine = 'userId' in actor ? actor.userId : null;
  const owned =
    f.owner === 'mine'
      ? sql`AND o.assignee_id = ${mine}::uuid`
      : f.owner === 'unassigned'
        ? sql`AND o.assignee_id IS NULL`
        : f.owner === 'on_hold'
          ? sql`AND o.status = 'on_hold'`
          : sql``;
  const about = sql`${f.errorType ? sql`AND c.error_type ILIKE ${likePattern(f.errorType)}` : sql``}
    ${f.q ? sql`AND (coalesce(c.pattern, c.template) ILIKE ${likePattern(f.q)} OR c.error_type ILIKE ${likePattern(f.q)})` : sql``}
    ${owned} ${f.ownerStatus ? sql`AND coalesce(o.status, 'open') = ${f.ownerStatus}` : sql``}`;
  // Ownership rides along (LEFT JOIN: most clusters have no row, which reads as open, unassigned).
  const ownership = sql`o.status AS o_status, u.email AS o_assignee, o.hold_until AS o_hold_until, o.regressed_at AS o_regressed_at`;
  const joinOwnership = sql`LEFT JOIN cluster_ownership o ON o.cluster_id = c.id LEFT JOIN users u ON u.id = o.assignee_id`;
  const rows = restrict
    ? // Only the actor's sources' share: counts, first/last seen and the order are theirs.
      await sql<Row[]>`
        SELECT c.id::text, c.fingerprint, coalesce(c.pattern, c.template) AS template, c.grouped_by, c.error_type, c.top_frame, c.error_class,
               a.count, a.open_count, a.first_seen, a.last_seen, a.sources, ${ownership}
        FROM (
          SELECT cluster_id, sum(count)::int AS count, sum(open_count)::int AS open_count, min(first_seen) AS first_seen,
                 max(last_seen) AS last_seen, array_agg(source_id::text ORDER BY source_id) AS sources
          FROM cluster_sources WHERE source_id = ANY(${restrict}::uuid[])
          GROUP BY cluster_id
          HAVING TRUE ${f.state === 'open' ? sql`AND sum(open_count) > 0` : sql``}
            ${after ? sql`AND (max(last_seen), cluster_id) < (${after.lastSeen}::timestamptz, ${after.id}::uuid)` : sql``}
        ) a JOIN clusters c ON c.id = a.cluster_id ${joinOwnership}
        WHERE c.merged_into_id IS NULL ${about}
        ORDER BY a.last_seen DESC, a.cluster_id DESC
        LIMIT ${limit + 1}`
    : await sql<Row[]>`
        SELECT c.id::text, c.fingerprint, coalesce(c.pattern, c.template) AS template, c.grouped_by, c.error_type, c.top_frame, c.error_class,
               c.count, c.open_count, c.first_seen, c.last_seen,
               ARRAY(SELECT cs.source_id::text FROM cluster_sources cs WHERE cs.cluster_id = c.id ORDER BY cs.source_id) AS sources, ${ownership}
        FROM clusters c ${joinOwnership}
        WHERE c.merged_into_id IS NULL ${f.state === 'open' ? sql`AND c.open_count > 0` : sql``} ${about}
          ${after ? sql`AND c.last_seen <= ${after.lastSeen}::timestamptz AND (c.last_seen, c.id) < (${after.lastSeen}::timestamptz, ${after.id}::uuid)` : sql``}
        ORDER BY c.last_seen DESC, c.id DESC
        LIMIT ${limit + 1}`;

  const page = rows.slice(0, limit);
  const series = await hourlySeries(
    page.map((r) => r.id),
    { now, hours: SPARKLINE_HOURS, restrict, sql },
  );
  const names = new Map(scope.sources.map((s) => [s.id, s.name]));
  const last = page[page.length - 1];
  // Templates get the one masking of error text (lib/masking) for readers without reveal.
  return {
    clusters: page.map((r) => {
      const s = series.get(r.id)!;
      return {
        id: r.id,
        fingerprint: r.fingerprint,
        template: maskErrorText(r.template)!,
        // A split or rule names payload or header values: the same detectors as the template.
        groupedBy: r.grouped_by == null ? r.grouped_by : (maskErrorText(r.grouped_by) ?? null),
        errorType: r.error_type,
        topFrame: r.top_frame,
        errorClass: r.error_class,
        verdict: clusterVerdict(r.error_class, r.last_seen, now),
        count: r.count,
        openCount: r.open_count,
        firstSeen: r.first_seen.toISOString(),
        lastSeen: r.last_seen.toISOString(),
        ratePerHour: ratePerHour(s, now),
        sparkline: s.counts,
        sources: r.sources.flatMap((id) => (names.has(id) ? [{ id, name: names.get(id)! }] : [])),
        ownership: {
          status: (r.o_status ?? 'open') as OwnershipStatus,
          assignee: r.o_assignee,
          holdUntil: r.o_hold_until?.toISOString() ?? null,
          regressedAt: r.o_regressed_at?.toISOString() ?? null,
        },
      };
    }),
    nextCursor: rows.length > limit && last ? encodeCursor({ lastSeen: last.last_seen, id: last.id }) : null,
  };
}

export const { fromSearchParams: clusterFiltersFromSearchParams, toSearchParams: clusterFiltersToSearchParams } = filterQueryString(
  clusterFilters,
  CLUSTER_FILTER_KEYS,
  { state: 'open' },
);

/** listClusters, once more on the primary if the replica goes away under it (lib/db/replica.ts). */
export const listClusters = retriedOnPrimary(listClustersOnce);
