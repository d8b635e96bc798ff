// What a redrive covers: ids, a cluster, a filter, or all open dead letters of a source. A
// selection resolves to ONE source (the destination is always the message's own source queue, and
// a source has one active task at a time) and is frozen at start into the task's items.
import type { SourceKind } from '@/lib/model/source-kind';
import { z } from 'zod';
import { Prisma } from '@/generated/prisma/client';
import type { Tx } from '@/lib/db';
import { sourceScope, type Permission, type Principal } from '@/lib/auth';
import { AppError, notFound, unprocessable } from '@/lib/errors';
import { deadLetterFilters, type DeadLetterFilters } from '@/lib/deadletters/filters';
import { findSource } from '@/lib/model/find-source';
import { planQuery, whereAll } from '@/lib/deadletters/query';

const deadLetterId = z.union([z.string().regex(/^\d{1,19}$/, 'a dead letter id'), z.number().int().positive()]).transform(String);
const uuid = z.string().uuid();

/** A filter selection is frozen to at most this many dead letters; a larger one must be narrowed. */
export const MAX_FILTER_SELECTION = 100_000;

export const redriveSelection = z.union([
  z.object({ ids: z.array(deadLetterId).min(1).max(10_000) }).strict(),
  // A cluster can span sources: `source` picks one when it does.
  z.object({ cluster: uuid, source: z.string().min(1).optional() }).strict(),
  // The dead-letter list's own filters (lib/deadletters/filters); only open dead letters are redriven.
  z.object({ filter: deadLetterFilters }).strict(),
  z.object({ source: z.string().min(1) }).strict(),
]);

export type RedriveSelection = z.infer<typeof redriveSelection>;
export type RedriveSelectionInput = z.input<typeof redriveSelection>;

export interface SelectedSource {
  id: string;
  name: string;
  teamId: string;
  kind: SourceKind;
  maxRedrives: number;
  approvalThreshold: number;
  redriveUrl: string | null;
}

export interface ResolvedSelection {
  source: SelectedSource;
  /** SQL condition over `d` (dead_letters) for the selection, without the status. */
  where: Prisma.Sql;
}

export function clusterCondition(clusterId: string): Prisma.Sql {
  // Dead letters of clusters merged into this one belong to it too.
  return Prisma.sql`d.cluster_id IN (SELECT id FROM clusters WHERE id = ${clusterId}::uuid OR merged_into_id = ${clusterId}::uuid)`;
}

/** The open dead letters a filter matches now, oldest first, with the actor's scope applied in the query. */
export async function filterMatches(
  actor: Principal,
  permission: Permission,
  filter: DeadLetterFilters,
  extra: 'ids' | { createdAfter: Date; notInTask: string },
) {
  const plan = await planQuery(actor, filter, permission);
  plan.statuses = ['open'];
  if (plan.restrict?.length === 0) return [];
  const { sql } = plan;
  if (extra === 'ids') {
    return sql<{ id: bigint; source_id: string }[]>`
      SELECT d.id, d.source_id FROM dead_letters d WHERE ${whereAll(plan)} ORDER BY d.dead_at, d.id LIMIT ${MAX_FILTER_SELECTION + 1}`;
  }
  return sql<{ id: bigint; source_id: string }[]>`
    SELECT d.id, d.source_id FROM dead_letters d
    WHERE ${whereAll(plan, [
      sql`d.created_at > ${extra.createdAfter}`,
      sql`NOT EXISTS (SELECT 1 FROM redrive_items i WHERE i.task_id = ${extra.notInTask}::uuid AND i.dead_letter_id = d.id)`,
    ])}
    LIMIT ${MAX_FILTER_SELECTION}`;
}

/** One source among those holding open matches; several → 422 naming them, so the caller can pick. */
async function oneSourceOf(tx: Tx, actor: Principal, permission: Permission, cond: Prisma.Sql, what: string): Promise<SelectedSource> {
  const scope = sourceScope(actor, permission);
  const team = scope.teamId ? Prisma.sql`AND s.team_id = ${scope.teamId}::uuid` : Prisma.empty;
  const rows = await tx.$queryRaw<{ id: string; name: string; open: bigint }[]>`
    SELECT s.id, s.name, count(*) AS open FROM dead_letters d JOIN sources s ON s.id = d.source_id
    WHERE d.status = 'open' AND ${cond} ${team} GROUP BY s.id, s.name ORDER BY s.name`;
  if (rows.length === 0) throw unprocessable(`Nothing to redrive: ${what} has no open dead letters`);
  if (rows.length > 1) {
    throw unprocessable(`${what} spans ${rows.length} sources: redrive one source at a time`, {
      sources: rows.map((r) => ({ name: r.name, open: Number(r.open) })),
    });
  }
  return findSource(actor, rows[0]!.id, permission, tx);
}

/** Resolve a selection to its one source and its SQL condition, checking the actor's scope. */
export async function resolveSelection(tx: Tx, actor: Principal, permission: Permission, selection: RedriveSelection): Promise<ResolvedSelection> {
  if ('ids' in selection) {
    const ids = [...new Set(selection.ids)];
    const scope = sourceScope(actor, permission);
    const team = scope.teamId ? Prisma.sql`AND s.team_id = ${scope.teamId}::uuid` : Prisma.empty;
    const found = await tx.$queryRaw<{ sourceId: string; n: bigint }[]>`
      SELECT d.source_id AS "sourceId", count(*) AS n FROM dead_letters d JOIN sources s ON s.id = d.source_id
      WHERE d.id = ANY(${ids}::bigint[]) ${team} GROUP BY d.source_id`;
    const n = found.reduce((a, r) => a + Number(r.n), 0);
    // Ids outside the actor's scope answer exactly as ids that do not exist.
    if (n < ids.length) throw notFound(`${ids.length - n} of the selected dead letters do not exist`);
    if (found.length > 1) throw unprocessable('The selected dead letters belong to several sources: redrive one source at a time');
    const source = await findSource(actor, found[0]!.sourceId, permission, tx);
    return { source, where: Prisma.sql`d.id = ANY(${ids}::bigint[])` };
  }
  if ('cluster' in selection) {
    const [cluster] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM clusters WHERE id = ${selection.cluster}::uuid`;
    if (!cluster) throw notFound('No such cluster');
    const where = clusterCondition(selection.cluster);
    if (selection.source) {
      const source = await findSource(actor, selection.source, permission, tx);
      return { source, where };
    }
    return { source: await oneSourceOf(tx, actor, permission, where, 'this cluster'), where };
  }
  if ('filter' in selection) {
    const matches = await filterMatches(actor, permission, selection.filter, 'ids');
    if (matches.length === 0) throw unprocessable('Nothing to redrive: this filter has no open dead letters');
    if (matches.length > MAX_FILTER_SELECTION) {
      throw unprocessable(`The filter holds more than ${MAX_FILTER_SELECTION} dead letters; narrow it, or redrive the whole source or cluster`, {
        limit: MAX_FILTER_SELECTION,
      });
    }
    const sources = new Set(matches.map((m) => m.source_id));
    if (sources.size > 1) throw unprocessable(`This filter spans ${sources.size} sources: add a source to it and redrive one source at a time`);
    const source = await findSource(actor, matches[0]!.source_id, permission, tx);
    return { source, where: Prisma.sql`d.id = ANY(${matches.map((m) => m.id.toString())}::bigint[])` };
  }
  return { source: await findSource(actor, selection.source, permission, tx), where: Prisma.sql`TRUE` };
}

export interface SelectionCounts {
  /** Open dead letters the task would cover. */
  count: number;
  /** Of those, already redriven `maxRedrives` times: they would be skipped as a loop. */
  loops: number;
}

export async function countSelection(tx: Tx, r: ResolvedSelection): Promise<SelectionCounts> {
  const [row] = await tx.$queryRaw<{ count: bigint; loops: bigint }[]>`
    SELECT count(*) AS count, count(*) FILTER (WHERE d.redrive_count >= ${r.source.maxRedrives}) AS loops
    FROM dead_letters d WHERE d.source_id = ${r.source.id}::uuid AND d.status = 'open' AND ${r.where}`;
  return { count: Number(row?.count ?? 0), loops: Number(row?.loops ?? 0) };
}

export function assertSelectable(source: SelectedSource): void {
  if (source.kind === 'ingest' && !source.redriveUrl) {
    throw new AppError('unprocessable', `Source "${source.name}" is fed by the ingest API and has no redrive URL yet`, { field: 'redriveUrl' });
  }
}
