// Start a redrive task (SQS StartMessageMoveTask, safer): the selection is frozen into items in seq
// order in the same transaction as the task, its audit event and the 409 check, so the preview's
// count is what the task covers and what arrives later is drift, not included.
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { z } from 'zod';
import type { RedriveTask } from '@/generated/prisma/client';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, can, isAssistant, isSystem, type Principal } from '@/lib/auth';
import { AppError, forbidden, unprocessable } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';
import { redriveTraps } from '@/lib/connectors/trap-check';
import { TrapView } from '@/lib/connectors/traps';
import { ACTIVE_STATUSES } from './get-redrive';
import { nudgeRedrive } from './nudge';
import { settleNewTask, startedRecently, waitsFor } from './four-eyes';
import { RAMP_STEP_SECONDS } from './rate-plan';
import { describeDestination, resolveDestination } from './destination-source';
import { assertSelectable, countSelection, redriveSelection, resolveSelection, type RedriveSelectionInput, type SelectedSource } from './selection';
import { arrivingOutage, outageCluster, RedriveOutage } from './arriving-outage';

export const DEFAULT_RATE = 10;
export const MAX_RATE = 5_000;
/** How long a sent message is watched for a death before it counts as "no death seen" (seconds). */
export const DEFAULT_OUTCOME_WINDOW_SECONDS = 600;
export const DEFAULT_CANARY_WINDOW_SECONDS = 60;
export const MAX_OUTCOME_WINDOW_SECONDS = 7 * 24 * 3600;

const rampInput = z.union([
  z
    .array(z.number().int().min(1))
    .min(1)
    .max(10)
    .transform((steps) => ({ steps, stepSeconds: RAMP_STEP_SECONDS })),
  z.object({ steps: z.array(z.number().int().min(1)).min(1).max(10), stepSeconds: z.number().int().min(1).max(3600) }).strict(),
]);

export const startRedriveInput = z
  .object({
    selection: redriveSelection,
    /** Messages per second; always set (a redrive at full speed re-creates the outage). */
    ratePerSecond: z.number().int().min(1).max(MAX_RATE).default(DEFAULT_RATE),
    /** One message first; the rest only after it was acknowledged, or its canary window passed with no death seen. */
    canary: z.boolean().default(false),
    /** A sent message neither acknowledged nor dead again by then is final as "no death seen". */
    outcomeWindowSeconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_OUTCOME_WINDOW_SECONDS)
      .default(DEFAULT_OUTCOME_WINDOW_SECONDS)
      .describe('Seconds a sent message is watched for a death; neither acknowledged nor dead again by then, it counts as no death seen'),
    /** The canary's own outcome window. */
    canaryWindowSeconds: z
      .number()
      .int()
      .min(1)
      .max(MAX_OUTCOME_WINDOW_SECONDS)
      .default(DEFAULT_CANARY_WINDOW_SECONDS)
      .describe("The canary's outcome window: the rest goes once the canary was acknowledged or this passed with no death seen"),
    /** Lower rates first, e.g. [1, 10, 100] (10 s each) or { steps, stepSeconds }. */
    ramp: rampInput.optional(),
    reason: z.string().trim().max(1000).optional(),
    /** Another source of the same kind, whose redrive allow-list names this one. */
    destination: z.string().min(1).max(200).optional(),
    outageConfirmed: z
      .boolean()
      .optional()
      .describe("A lead's word that the downstream is healthy, needed (with a reason) to redrive a cluster that is an outage whose errors still arrive"),
  })
  .strict()
  .refine((i) => !i.ramp || i.ramp.steps.every((s) => s <= i.ratePerSecond), { message: 'Ramp steps must not exceed the rate', path: ['ramp'] });

export type StartRedriveInput = z.input<typeof startRedriveInput>;

export const RedrivePreview = z.object({
  source: z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) }),
  count: z.int().describe('Open dead letters the task would cover, frozen at start'),
  loops: z.int().describe("Of those, past the source's maxRedrives: they will be skipped as a loop"),
  maxRedrives: z.int(),
  approvalThreshold: z.int(),
  needsApproval: z.boolean().describe("Whether a task of this size started by this actor waits for a second person's approval"),
  activeTaskId: z.uuid().nullable().describe("The source's active task, if any: a second one is refused (409)"),
  destination: z.string(),
  outage: RedriveOutage.nullable(),
  traps: z.array(TrapView).describe("What to know before redriving this source, e.g. an SQS FIFO source: a parked message broke its group's order"),
});
export type RedrivePreview = z.infer<typeof RedrivePreview>;

function destinationOf(source: SelectedSource): string {
  return describeDestination(source);
}

/**
 * A redrive of an arriving outage, whatever selects it, goes only on a lead's word (outageConfirmed)
 * with a reason, which the audit event keeps. A redrive rule's own condition (after the wave, quiet for its time) is its
 * author's standing word: its tasks are not asked again.
 */
function outageWords(outage: RedriveOutage): string {
  return outage.cause === 'cluster'
    ? `The selection holds dead letters of an outage whose errors are still arriving (cluster ${outage.clusterId}, its latest transient error at ${outage.lastSeen})`
    : `The source's alarms say outage: its transient errors are still arriving (as of ${outage.lastSeen})`;
}

function assertOutageConfirmed(actor: Principal, i: z.output<typeof startRedriveInput>, outage: RedriveOutage): void {
  // Whether the downstream is healthy again is a person's word, never an assistant's.
  if (isAssistant(actor))
    throw forbidden(`${outageWords(outage)}: an assistant does not redrive an outage; a lead confirms the downstream is healthy and starts it in Triage`);
  if (!i.outageConfirmed) {
    throw unprocessable(
      `${outageWords(outage)}: check the downstream and stop the bleeding first; a lead who has confirmed it is healthy redrives it with outageConfirmed and a reason`,
      { field: 'outageConfirmed', outage },
    );
  }
  if (!isSystem(actor) && !can(actor.role, 'redrive.approve')) throw forbidden('A lead confirms a redrive of an outage whose errors still arrive');
  if (!i.reason) throw unprocessable('Say why the downstream is healthy again (reason): the audit trail keeps it', { field: 'reason' });
}

/** What a redrive of `selection` would cover, without starting it. */
export async function previewRedrive(actor: Principal, selection: RedriveSelectionInput, clock: Clock = systemClock): Promise<RedrivePreview> {
  authorize(actor, 'deadletters.redrive');
  const parsed = redriveSelection.parse(selection);
  return db().$transaction(async (tx) => {
    const r = await resolveSelection(tx, actor, 'deadletters.redrive', parsed);
    const { count, loops } = await countSelection(tx, r);
    const active = await tx.redriveTask.findFirst({ where: { sourceId: r.source.id, status: { in: ACTIVE_STATUSES } }, select: { id: true } });
    const recent = await startedRecently(tx, actor, r.source.id, clock.now());
    const outage = await arrivingOutage(tx, r, clock.now());
    const stored = await tx.source.findUniqueOrThrow({ where: { id: r.source.id }, select: { kind: true, connection: true } });
    return {
      source: { id: r.source.id, name: r.source.name, kind: r.source.kind },
      count,
      loops,
      maxRedrives: r.source.maxRedrives,
      approvalThreshold: r.source.approvalThreshold,
      needsApproval: waitsFor(actor, count, recent, r.source) !== null,
      activeTaskId: active?.id ?? null,
      destination: destinationOf(r.source),
      outage,
      traps: redriveTraps(stored.kind, stored.connection),
    };
  });
}

/**
 * Start a redrive. Returns the task: 'queued' (a worker picks it up at once) or 'pending_approval'
 * when it, with what the same person started on the source in the last hour, is above the source's
 * approval threshold (four eyes, whatever the starter's role; the system is exempt). Throws 409 with the
 * active task's id when the source already has one, 422 when nothing open matches.
 */
export async function startRedrive(
  actor: Principal,
  input: StartRedriveInput,
  clock: Clock = systemClock,
  /** A redrive rule starting it for its author (lib/redrive-rules): named on the task and its audit event. */
  origin?: { ruleId: string; ruleName: string },
): Promise<RedriveTask> {
  authorize(actor, 'deadletters.redrive');
  const i = startRedriveInput.parse(input);
  const task = await db().$transaction(
    async (tx) => {
      const r = await resolveSelection(tx, actor, 'deadletters.redrive', i.selection);
      assertSelectable(r.source);
      const outage = origin ? null : await arrivingOutage(tx, r, clock.now());
      if (outage) assertOutageConfirmed(actor, i, outage);
      if (isAssistant(actor)) {
        const c = await outageCluster(tx, r, clock.now());
        if (c) {
          throw forbidden(
            `Cluster ${c.id} is classified ${c.verdict}: an assistant does not redrive an outage; a person confirms the downstream is healthy and drained, then redrives it in Triage`,
          );
        }
      }
      const into = await resolveDestination(tx, actor, r.source, i.destination);
      // One active task per source: the source row lock serialises concurrent starts.
      await tx.$executeRaw`SELECT 1 FROM sources WHERE id = ${r.source.id}::uuid FOR UPDATE`;
      const active = await tx.redriveTask.findFirst({ where: { sourceId: r.source.id, status: { in: ACTIVE_STATUSES } }, select: { id: true, status: true } });
      if (active) {
        throw new AppError('conflict', `Source "${r.source.name}" already has an active redrive task (${active.status})`, { activeTaskId: active.id });
      }
      // Before this task exists, so it is not counted twice.
      const recent = await startedRecently(tx, actor, r.source.id, clock.now());
      const created = await tx.redriveTask.create({
        data: {
          sourceId: r.source.id,
          destinationSourceId: into?.id ?? null,
          status: 'queued',
          selection: i.selection,
          ratePerSecond: i.ratePerSecond,
          ramp: i.ramp ?? undefined,
          canary: i.canary,
          outcomeWindowMs: i.outcomeWindowSeconds * 1000,
          canaryWindowMs: i.canaryWindowSeconds * 1000,
          reason: i.reason ?? null,
          createdById: isSystem(actor) ? null : actor.userId,
          ruleId: origin?.ruleId ?? null,
          createdAt: clock.now(),
        },
      });
      // Frozen: exactly these dead letters, oldest first (the order they died in).
      const total = await tx.$executeRaw`
        INSERT INTO redrive_items (task_id, seq, dead_letter_id)
        SELECT ${created.id}::uuid, row_number() OVER (ORDER BY d.dead_at, d.id), d.id
        FROM dead_letters d
        WHERE d.source_id = ${r.source.id}::uuid AND d.status = 'open' AND ${r.where}`;
      if (total === 0) throw unprocessable('Nothing to redrive: the selection has no open dead letters');
      const waits = waitsFor(actor, total, recent, r.source);
      const pending = waits !== null;
      const task = await settleNewTask(tx, created.id, total, pending);
      await append(
        tx,
        {
          actor: auditActor(actor),
          action: 'redrive.start',
          targetType: 'redrive_task',
          targetId: task.id,
          teamId: r.source.teamId,
          sourceId: r.source.id,
          selection: i.selection,
          count: total,
          reason: i.reason ?? null,
          after: {
            status: task.status,
            ratePerSecond: i.ratePerSecond,
            canary: i.canary,
            outcomeWindowSeconds: i.outcomeWindowSeconds,
            ...(i.canary ? { canaryWindowSeconds: i.canaryWindowSeconds } : {}),
            ramp: i.ramp ?? null,
            destination: destinationOf(into ?? r.source),
            ...(into ? { destinationSource: into.name } : {}),
            ...(origin ? { rule: { id: origin.ruleId, name: origin.ruleName } } : {}),
            ...(outage ? { outageConfirmed: outage } : {}),
            skipped: task.skipped,
          },
          result: waits
            ? waits
            : isSystem(actor) && total > r.source.approvalThreshold
              ? `exempt from four eyes: started by the system (${auditActor(actor).email}), ${total} > threshold ${r.source.approvalThreshold}`
              : undefined,
        },
        clock,
      );
      return task;
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
  if (task.status === 'queued') await nudgeRedrive(task.id);
  return task;
}
