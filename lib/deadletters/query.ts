// The SQL behind every dead-letter list, count, export and selection: filters turned into WHERE
// fragments, authorization in the query (rows of sources outside the actor's scope never match), and
// keyset pages that stay index-ordered at millions of rows.
//
// A plain `source_id = ANY(…) AND status = ANY(…) ORDER BY dead_at` cannot walk one index in order,
// so Postgres would sort every match. Instead a page is a UNION ALL of one branch per (source,
// status), (cluster, status) or status, each an ordered index scan with its own LIMIT, merged and
// cut to the page. An error-type filter (a part of the type, any case) is first resolved to the
// exact types it matches, read off the (source, error_type) index a type at a time; each becomes a
// branch of (source, status, error type) on its own ordered index. Text search and message id leave
// the plan to Postgres (trigram and unique indexes), which knows their selectivity.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';
import { sensitivePathsOf } from '@/lib/masking';
import { DEAD_LETTER_STATUSES, type Cursor, type DeadLetterFilters, type DeadLetterStatus } from './filters';

export interface VisibleSource {
  id: string;
  name: string;
  teamId: string;
  sensitivePaths: string[];
  /** The masking verdicts of its dead letters are being recomputed (lib/masking/recompute-verdicts.ts). */
  recomputing: boolean;
}

/** Sources the actor may see for `permission`; another team's source simply is not there. */
export async function visibleSources(actor: Principal, permission: Permission = 'deadletters.read', sql = pg()): Promise<VisibleSource[]> {
  // sourceScope authorizes (403) and names the team; postgres.js rather than Prisma keeps this
  // per-request lookup well under a millisecond.
  const { teamId } = sourceScope(actor, permission);
  const rows = await sql<{ id: string; name: string; team_id: string; sensitive_paths: unknown; recomputing: boolean }[]>`
    SELECT id, name, team_id, sensitive_paths, masking_recompute_from IS NOT NULL AS recomputing
    FROM sources ${teamId ? sql`WHERE team_id = ${teamId}::uuid` : sql``} ORDER BY name`;
  return rows.map((s) => ({
    id: s.id,
    name: s.name,
    teamId: s.team_id,
    sensitivePaths: sensitivePathsOf(s.sensitive_paths),
    recomputing: s.recomputing,
  }));
}

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface Plan {
  sql: postgres.Sql;
  sources: VisibleSource[];
  /** Source ids rows must belong to; null when every source is allowed. Empty: nothing matches. */
  restrict: string[] | null;
  statuses: readonly DeadLetterStatus[];
  clusterId?: string;
  /** The exact error types an error-type filter matches, when resolved (each a branch); null otherwise. */
  errorTypes: string[] | null;
  /** Conditions other than source, status and cluster. */
  residual: Fragment[];
  /** Leave the access path to the planner (selective filters with their own indexes). */
  flat: boolean;
  sort: 'newest' | 'oldest';
}

const MAX_BRANCHES = 48;
/**
 * Error types of one source a filter resolves against, at most: a source with more (types made of
 * ids?) leaves the ILIKE to the planner.
 */
export const ERROR_TYPES_PER_SOURCE = 200;

/**
 * The exact error types of these sources that `pattern` matches, or null when a source has too
 * many to branch on. Read from the types the writer keeps per source (source_error_types,
 * lib/intake/error-types.ts): at most ERROR_TYPES_PER_SOURCE + 1 rows of each, not a probe of
 * dead_letters' index over every partition.
 */
async function resolveErrorTypes(sql: postgres.Sql, sourceIds: string[], pattern: string): Promise<string[] | null> {
  if (sourceIds.length === 0) return [];
  // A source past the cap shows up as its row number ERROR_TYPES_PER_SOURCE + 1, whatever its type.
  const rows = await sql<{ error_type: string; k: number }[]>`
    SELECT t.error_type, t.k FROM unnest(${sourceIds}::uuid[]) AS s(id), LATERAL (
      SELECT e.error_type, row_number() OVER (ORDER BY e.error_type)::int AS k FROM (
        SELECT error_type FROM source_error_types WHERE source_id = s.id ORDER BY error_type LIMIT ${ERROR_TYPES_PER_SOURCE + 1}) e) t
    WHERE t.k > ${ERROR_TYPES_PER_SOURCE} OR t.error_type ILIKE ${pattern}`;
  if (rows.some((r) => r.k > ERROR_TYPES_PER_SOURCE)) return null;
  return [...new Set(rows.map((r) => r.error_type))].sort();
}

/** LIKE pattern for a plain substring: %, _ and \ in the search text match themselves. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Turn filters into a plan for this actor. `maskedText`: text search also matches inside masked
 * values, for a caller that checked the actor's search reveal. `sql`: where the plan reads, the
 * primary unless a read-only caller passes readDb(actor) (lib/db/replica.ts); a selection that
 * feeds a decision or a redrive keeps the primary.
 */
export async function planQuery(
  actor: Principal,
  filters: DeadLetterFilters,
  permission: Permission = 'deadletters.read',
  opts: { maskedText?: boolean; sql?: postgres.Sql } = {},
): Promise<Plan> {
  const sql = opts.sql ?? pg();
  // Who may see which source and what is masked: the primary's answer, never a lagging copy's (an
  // admin's new sensitive path holds at once); only the rows are read where `sql` reads.
  const sources = await visibleSources(actor, permission, pg());
  const scopedToTeam = Object.keys(sourceScope(actor, permission)).length > 0;
  let restrict: string[] | null = scopedToTeam ? sources.map((s) => s.id) : null;
  if (filters.source) restrict = sources.filter((s) => filters.source!.includes(s.name)).map((s) => s.id);
  // A message id is looked up in the key table (its unique (source, message id, generation) index),
  // per visible source: dead_letters itself keeps no index on it, which every insert would pay for.
  if (filters.messageId && restrict === null) restrict = sources.map((s) => s.id);

  const residual: Fragment[] = [];
  if (filters.reason?.length) residual.push(sql`d.reason = ANY(${filters.reason}::"DeadLetterReason"[])`);
  // A part of the type, any case: a Java type without its package, "schemaerror" for OrderSchemaError.
  // Resolved to exact types when the rest of the filter is branches (no text, no message id).
  let errorTypes: string[] | null = null;
  if (filters.errorType && !filters.q && !filters.messageId) {
    errorTypes = await resolveErrorTypes(sql, restrict ?? sources.map((s) => s.id), likePattern(filters.errorType));
  }
  if (errorTypes) residual.push(sql`d.error_type = ANY(${errorTypes}::text[])`);
  else if (filters.errorType) residual.push(sql`d.error_type ILIKE ${likePattern(filters.errorType)}`);
  if (filters.messageId) {
    residual.push(sql`(d.id, d.dead_at) IN (SELECT k.id, k.dead_at FROM dead_letter_keys k
      WHERE k.source_id = ANY(${restrict ?? []}::uuid[]) AND k.message_id = ${filters.messageId})`);
  }
  if (filters.from) residual.push(sql`d.dead_at >= ${filters.from}`);
  if (filters.to) residual.push(sql`d.dead_at < ${filters.to}`);
  if (filters.q) {
    const p = likePattern(filters.q);
    // Text lives in dead_letter_search (filled by the search indexer, lib/search): its trigram
    // index finds the candidates. Masked text is no search oracle: unless the caller checked an
    // audited reveal, a row matches only in a part whose stored verdict is clear
    // (lib/masking/verdict.ts; NULL, not decided yet, is masked), and no payload of a source whose
    // verdicts are being recomputed does.
    // The first test is the one trigram index over both texts (written exactly as in its migration,
    // or the planner does not use it); the second keeps a match from spanning the two texts.
    residual.push(sql`d.id IN (SELECT s.dead_letter_id FROM dead_letter_search s
      WHERE (coalesce(s.error_text, '') || E'\n' || coalesce(s.payload_text, '')) ILIKE ${p}
        AND (s.error_text ILIKE ${p} OR s.payload_text ILIKE ${p}))`);
    if (!opts.maskedText) {
      const recomputing = sources.filter((s) => s.recomputing).map((s) => s.id);
      residual.push(sql`((d.text_masked IS FALSE AND EXISTS (SELECT 1 FROM dead_letter_search s WHERE s.dead_letter_id = d.id AND s.error_text ILIKE ${p}))
        OR (d.payload_masked IS FALSE AND d.source_id <> ALL(${recomputing}::uuid[])
            AND EXISTS (SELECT 1 FROM dead_letter_search s WHERE s.dead_letter_id = d.id AND s.payload_text ILIKE ${p})))`);
    }
  }
  return {
    sql,
    sources,
    restrict,
    statuses: filters.status?.length ? [...new Set(filters.status)] : DEAD_LETTER_STATUSES,
    clusterId: filters.clusterId,
    errorTypes,
    residual,
    flat: Boolean(filters.q || (filters.errorType && !errorTypes) || filters.messageId),
    sort: filters.sort,
  };
}

const and = (sql: postgres.Sql, conds: Fragment[]): Fragment => (conds.length ? conds.reduce((a, c) => sql`${a} AND ${c}`) : sql`TRUE`);

/** Every condition of the plan as one WHERE fragment (counts, selections, flat pages). */
export function whereAll(plan: Plan, extra: Fragment[] = []): Fragment {
  const { sql } = plan;
  const conds: Fragment[] = [];
  if (plan.restrict) conds.push(sql`d.source_id = ANY(${plan.restrict}::uuid[])`);
  if (plan.statuses.length < DEAD_LETTER_STATUSES.length) conds.push(sql`d.status = ANY(${plan.statuses}::"DeadLetterStatus"[])`);
  if (plan.clusterId) conds.push(sql`d.cluster_id = ${plan.clusterId}::uuid`);
  return and(sql, [...conds, ...plan.residual, ...extra]);
}

function keyset(plan: Plan, cursor: Cursor | undefined): Fragment[] {
  if (!cursor) return [];
  const { sql } = plan;
  return plan.sort === 'newest'
    ? [sql`(d.dead_at, d.id) < (${cursor.deadAt}::timestamptz, ${cursor.id.toString()}::bigint)`]
    : [sql`(d.dead_at, d.id) > (${cursor.deadAt}::timestamptz, ${cursor.id.toString()}::bigint)`];
}

/** One keyset page of rows with the given columns (an internal constant, never user input). */
export async function selectPage<T extends postgres.Row>(plan: Plan, columns: string, cursor: Cursor | undefined, limit: number): Promise<T[]> {
  const { sql } = plan;
  if (plan.restrict?.length === 0) return [];
  const cols = sql.unsafe(columns);
  const order = plan.sort === 'newest' ? sql`ORDER BY d.dead_at DESC, d.id DESC` : sql`ORDER BY d.dead_at ASC, d.id ASC`;
  const after = keyset(plan, cursor);
  if (plan.flat) {
    return [...(await sql<T[]>`SELECT ${cols} FROM dead_letters d WHERE ${whereAll(plan, after)} ${order} LIMIT ${limit}`)];
  }
  if (plan.errorTypes?.length === 0) return [];
  const common = [...plan.residual, ...after];
  let branches: Fragment[][];
  const types = plan.errorTypes;
  const sourceIds = plan.restrict ?? plan.sources.map((s) => s.id);
  if (types && !plan.clusterId && sourceIds.length * plan.statuses.length * types.length <= MAX_BRANCHES) {
    // (source, status, error type): each branch one ordered scan of its index, stopped at the page.
    branches = sourceIds.flatMap((id) =>
      plan.statuses.flatMap((s) => types.map((t) => [sql`d.source_id = ${id}::uuid`, sql`d.status = ${s}::"DeadLetterStatus"`, sql`d.error_type = ${t}`])),
    );
  } else if (plan.clusterId) {
    const bySource = plan.restrict ? [sql`d.source_id = ANY(${plan.restrict}::uuid[])`] : [];
    branches = plan.statuses.map((s) => [sql`d.cluster_id = ${plan.clusterId!}::uuid`, sql`d.status = ${s}::"DeadLetterStatus"`, ...bySource]);
  } else if (plan.restrict && plan.restrict.length * plan.statuses.length <= MAX_BRANCHES) {
    branches = plan.restrict.flatMap((id) => plan.statuses.map((s) => [sql`d.source_id = ${id}::uuid`, sql`d.status = ${s}::"DeadLetterStatus"`]));
  } else {
    const bySource = plan.restrict ? [sql`d.source_id = ANY(${plan.restrict}::uuid[])`] : [];
    branches = plan.statuses.map((s) => [sql`d.status = ${s}::"DeadLetterStatus"`, ...bySource]);
  }
  // A (source, status, error type) branch reads the keys first, as several branches do: asked for
  // every column at once, the planner read every match through a bitmap and sorted them (the
  // filtered page 28 ms at 5,000,000 rows, against 11 ms for the unfiltered one).
  if (branches.length === 1 && !types) {
    return [...(await sql<T[]>`SELECT ${cols} FROM dead_letters d WHERE ${and(sql, [...branches[0]!, ...common])} ${order} LIMIT ${limit}`)];
  }
  // Branches read only the keys (index-only where the visibility map allows); the page's rows are
  // then fetched once, not once per branch, by (id, dead_at): the partitions' primary key (a join on
  // id alone scans every partition: docs/design.md, Partitioning).
  const parts = branches.map((b) => sql`(SELECT d.id, d.dead_at FROM dead_letters d WHERE ${and(sql, [...b, ...common])} ${order} LIMIT ${limit})`);
  const union = parts.reduce((a, p) => sql`${a} UNION ALL ${p}`);
  return [
    ...(await sql<T[]>`
      SELECT ${cols} FROM (SELECT d.id, d.dead_at FROM (${union}) d ${order} LIMIT ${limit}) page
      JOIN dead_letters d ON d.id = page.id AND d.dead_at = page.dead_at ${order}`),
  ];
}

/**
 * Rows by id in the given order, for a page sized first and fetched after (a byte-bounded export
 * batch). The ids come from a scoped page, so this adds no scope of its own.
 */
export async function selectByIds<T extends postgres.Row>(plan: Plan, columns: string, ids: readonly bigint[]): Promise<T[]> {
  if (ids.length === 0) return [];
  const { sql } = plan;
  return [
    ...(await sql<T[]>`
      SELECT ${sql.unsafe(columns)} FROM unnest(${ids.map(String)}::bigint[]) WITH ORDINALITY AS k(id, n)
      JOIN dead_letter_keys dk ON dk.id = k.id JOIN dead_letters d ON d.id = dk.id AND d.dead_at = dk.dead_at ORDER BY k.n`),
  ];
}
