// Decisions on dead letters, on purpose and not by expiry (docs/design.md "What a dead letter
// carries"): archive keeps the message as resolved; discard deletes the payload and keeps a
// tombstone. Single or bulk over a selection (ids or a filter) with a preview count; each with a
// required reason and its audit event in the same transaction.
import { z } from 'zod';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, sourceScope, type Permission, type Principal } from '@/lib/auth';
import { AppError, notFound } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';
import { closeDeadLetters, type ClosedStatus } from './close-dead-letters';
import { deadLetterFilters, type DeadLetterStatus } from './filters';
import { parseDeadLetterId } from './get-dead-letter';
import { isoTime } from '@/lib/wire';
import { planQuery, whereAll } from './query';

export const DECISIONS = {
  archive: { permission: 'deadletters.archive', to: 'archived', from: ['open'], action: 'deadletter.archive' },
  // A lead may also delete the data of something archived or already redriven.
  discard: { permission: 'deadletters.discard', to: 'discarded', from: ['open', 'archived', 'redriven'], action: 'deadletter.discard' },
} as const satisfies Record<string, { permission: Permission; to: ClosedStatus; from: readonly DeadLetterStatus[]; action: string }>;

export type Decision = keyof typeof DECISIONS;

export const reasonSchema = z.string().trim().min(1, 'a reason is required').max(1000);
/** A reason given alone, refused as the field `reason` (a bare parse would name no field). */
export const parseReason = (reason: string) => z.object({ reason: reasonSchema }).parse({ reason }).reason;
export const decisionInput = z.object({ reason: reasonSchema });

/** Bulk decisions touch at most this many dead letters at once; a larger selection must be narrowed. */
export const MAX_BULK = 50_000;
export const MAX_BULK_IDS = 10_000;

export const selectionSchema = z.union([
  z
    .object({
      ids: z
        .array(z.string().regex(/^\d{1,19}$/, 'a dead-letter id'))
        .min(1)
        .max(MAX_BULK_IDS),
    })
    .strict(),
  z.object({ filter: deadLetterFilters }).strict(),
]);
export type SelectionInput = z.input<typeof selectionSchema>;

export const bulkDecisionInput = z.object({ selection: selectionSchema, reason: reasonSchema });

/** The status a decision leaves: archived or discarded. */
const decidedStatus = z.enum([DECISIONS.archive.to, DECISIONS.discard.to]);
export const DecisionResult = z.object({ id: z.string(), status: decidedStatus, decidedAt: isoTime });
export type DecisionResult = z.infer<typeof DecisionResult>;
export const BulkDecisionResult = z.object({ count: z.int(), status: decidedStatus, decidedAt: isoTime });
export const DecisionPreview = z.object({ count: z.int(), overLimit: z.boolean(), limit: z.int() });

/** Archive or discard one dead letter. 404 outside the actor's scope, 409 when its status does not allow it. */
export async function decideDeadLetter(
  actor: Principal,
  decision: Decision,
  idParam: string,
  reasonInput: string,
  clock: Clock = systemClock,
): Promise<DecisionResult> {
  const d = DECISIONS[decision];
  authorize(actor, d.permission);
  const id = parseDeadLetterId(idParam);
  const reason = parseReason(reasonInput);
  const at = clock.now();
  return db().$transaction(async (tx) => {
    const row = await tx.deadLetter.findFirst({
      where: { id, source: sourceScope(actor, d.permission) },
      select: { status: true, sourceId: true, source: { select: { teamId: true } } },
    });
    if (!row) throw notFound('No such dead letter');
    const from: readonly DeadLetterStatus[] = d.from;
    if (!from.includes(row.status)) {
      throw new AppError('conflict', `This dead letter is ${row.status}; only ${d.from.join(' or ')} dead letters can be ${d.to}`, { status: row.status });
    }
    const moved = await closeDeadLetters(tx, [id], d.to, { from: d.from, decidedById: isSystem(actor) ? null : actor.userId, reason, at });
    if (moved.length === 0) throw new AppError('conflict', 'This dead letter was decided by someone else just now');
    await append(
      tx,
      {
        actor: auditActor(actor),
        action: d.action,
        targetType: 'deadletter',
        targetId: id.toString(),
        sourceId: row.sourceId,
        teamId: row.source.teamId,
        reason,
        before: { status: row.status },
        after: { status: d.to },
      },
      clock,
    );
    return { id: id.toString(), status: d.to, decidedAt: at.toISOString() };
  });
}

/** The ids a selection covers for this decision (eligible statuses, actor's scope), up to MAX_BULK + 1. */
async function resolveSelection(actor: Principal, decision: Decision, selectionInput: SelectionInput) {
  const d = DECISIONS[decision];
  const selection = selectionSchema.parse(selectionInput);
  const filter = 'filter' in selection ? selection.filter : deadLetterFilters.parse({});
  const plan = await planQuery(actor, filter, d.permission);
  const from: readonly DeadLetterStatus[] = d.from;
  plan.statuses = plan.statuses.filter((s) => from.includes(s));
  const { sql } = plan;
  const extra = 'ids' in selection ? [sql`d.id = ANY(${selection.ids}::bigint[])`] : [];
  if (plan.restrict?.length === 0 || plan.statuses.length === 0)
    return { selection, ids: [] as bigint[], teams: new Set<string>(), sources: new Set<string>() };
  const rows = await sql<{ id: bigint; source_id: string }[]>`
    SELECT d.id, d.source_id FROM dead_letters d WHERE ${whereAll(plan, extra)} ORDER BY d.id LIMIT ${MAX_BULK + 1}`;
  const teamOf = new Map(plan.sources.map((s) => [s.id, s.teamId]));
  return {
    selection,
    ids: rows.map((r) => r.id),
    sources: new Set(rows.map((r) => r.source_id)),
    teams: new Set(rows.map((r) => teamOf.get(r.source_id)!)),
  };
}

/** How many dead letters a bulk decision would touch now; `overLimit` when more than MAX_BULK. */
export async function previewDecision(actor: Principal, decision: Decision, selection: SelectionInput) {
  authorize(actor, DECISIONS[decision].permission);
  const { ids } = await resolveSelection(actor, decision, selection);
  return { count: Math.min(ids.length, MAX_BULK), overLimit: ids.length > MAX_BULK, limit: MAX_BULK };
}

/** Archive or discard every eligible dead letter of a selection: one transaction, one audit event with the selection and count. */
export async function decideSelection(actor: Principal, decision: Decision, selectionInput: SelectionInput, reasonInput: string, clock: Clock = systemClock) {
  const d = DECISIONS[decision];
  authorize(actor, d.permission);
  const reason = parseReason(reasonInput);
  const { selection, ids, teams, sources } = await resolveSelection(actor, decision, selectionInput);
  if (ids.length > MAX_BULK) {
    throw new AppError('unprocessable', `The selection holds more than ${MAX_BULK} dead letters; narrow the filter and repeat`, { limit: MAX_BULK });
  }
  const at = clock.now();
  // The ids were frozen above; closeDeadLetters rechecks each status under its row lock.
  return db().$transaction(
    async (tx) => {
      const moved = await closeDeadLetters(tx, ids, d.to, { from: d.from, decidedById: isSystem(actor) ? null : actor.userId, reason, at });
      const scopedTeam = sourceScope(actor, d.permission).teamId;
      await append(
        tx,
        {
          actor: auditActor(actor),
          action: d.action,
          targetType: 'deadletter',
          selection: 'filter' in selection ? { filter: deadLetterFilters.parse(selection.filter) } : selection,
          count: moved.length,
          teamId: scopedTeam ?? (teams.size === 1 ? [...teams][0] : null),
          sourceId: sources.size === 1 ? [...sources][0] : null,
          reason,
          after: { status: d.to },
        },
        clock,
      );
      return { count: moved.length, status: d.to, decidedAt: at.toISOString() };
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
}
