// Every change of a task's status, each audited in its own transaction: pause, resume, cancel and
// approve by people; auto-pause (breaker, canary) and finish by the redrive worker.
import { z } from 'zod';
import type { RedriveTask, RedriveTaskStatus } from '@/generated/prisma/client';
import { db, type Tx } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, sourceScope, SYSTEM, type Permission, type Principal } from '@/lib/auth';
import { AppError, notFound } from '@/lib/errors';
import { systemClock, type Clock } from '@/lib/clock';
import { ACTIVE_REDRIVE_STATUSES } from '@/lib/enums';
import { countsOf } from './get-redrive';
import { holdDeadLetters, releaseUnsent } from '@/lib/intake/dead-letter-status';
import { nudgeRedrive } from './nudge';
import { TASK_LOCK_CLASS } from './task-lock';
import { assertMayApprove } from './four-eyes';

export const redriveCommandInput = z.object({ reason: z.string().trim().max(1000).optional() }).strict();
export type RedriveCommandInput = z.input<typeof redriveCommandInput>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type LockedTask = RedriveTask & { teamId: string };

/** The task, row-locked for this transaction, if the actor may act on it (else 404). */
async function lockTask(tx: Tx, actor: Principal, permission: Permission, id: string): Promise<LockedTask> {
  if (!UUID.test(id)) throw notFound('No such redrive task');
  const visible = await tx.redriveTask.findFirst({ where: { id, source: sourceScope(actor, permission) }, select: { id: true } });
  if (!visible) throw notFound('No such redrive task');
  await tx.$executeRaw`SELECT 1 FROM redrive_tasks WHERE id = ${id}::uuid FOR UPDATE`;
  const task = await tx.redriveTask.findUniqueOrThrow({ where: { id }, include: { source: { select: { teamId: true } } } });
  const { source, ...rest } = task;
  return { ...rest, teamId: source.teamId };
}

function expectStatus(task: RedriveTask, allowed: readonly RedriveTaskStatus[], verb: string): void {
  if (!allowed.includes(task.status)) throw new AppError('conflict', `Cannot ${verb} a task that is ${task.status.replace('_', ' ')}`, { status: task.status });
}

async function audit(
  tx: Tx,
  actor: Principal,
  task: LockedTask,
  action: string,
  reason: string | null | undefined,
  extra: { result?: string; clock?: Clock } = {},
) {
  const fresh = await tx.redriveTask.findUniqueOrThrow({ where: { id: task.id } });
  await append(
    tx,
    {
      actor: auditActor(actor),
      action,
      targetType: 'redrive_task',
      targetId: task.id,
      teamId: task.teamId,
      sourceId: task.sourceId,
      selection: task.selection,
      count: fresh.total,
      reason: reason ?? null,
      before: { status: task.status },
      after: { status: fresh.status, ...countsOf(fresh) },
      result: extra.result,
    },
    extra.clock,
  );
  return fresh;
}

const who = (actor: Principal) => (isSystem(actor) ? (actor.label ?? 'system') : actor.email);

interface TaskCommand {
  /** What the command is called in a refusal ("Cannot resume a task that is running"). */
  verb: string;
  /** The statuses it may be given in (else 409). */
  from: readonly RedriveTaskStatus[];
  permission?: Permission;
  /** The task is the worker's to run now: nudge it rather than wait for the next reconcile. */
  nudge?: boolean;
}

/**
 * A person's command on a task: authorized, its input parsed, the task locked and in a status the
 * command may be given in, then `change` and its audit event in the same transaction.
 */
async function taskCommand(
  actor: Principal,
  id: string,
  input: RedriveCommandInput,
  { verb, from, permission = 'deadletters.redrive', nudge = false }: TaskCommand,
  change: (tx: Tx, task: LockedTask, reason: string | undefined) => Promise<RedriveTask>,
): Promise<RedriveTask> {
  authorize(actor, permission);
  const { reason } = redriveCommandInput.parse(input);
  const task = await db().$transaction(async (tx) => {
    const locked = await lockTask(tx, actor, permission, id);
    expectStatus(locked, from, verb);
    return change(tx, locked, reason);
  });
  if (nudge) await nudgeRedrive(task.id);
  return task;
}

export async function pauseRedrive(actor: Principal, id: string, input: RedriveCommandInput = {}): Promise<RedriveTask> {
  return taskCommand(actor, id, input, { verb: 'pause', from: ['queued', 'running'] }, async (tx, task, reason) => {
    await tx.redriveTask.update({
      where: { id },
      data: { status: 'paused', pausedAt: new Date(), pausedReason: `Paused by ${who(actor)}${reason ? `: ${reason}` : ''}` },
    });
    return audit(tx, actor, task, 'redrive.pause', reason);
  });
}

export async function resumeRedrive(actor: Principal, id: string, input: RedriveCommandInput = {}): Promise<RedriveTask> {
  return taskCommand(actor, id, input, { verb: 'resume', from: ['paused'], nudge: true }, async (tx, task, reason) => {
    // A resume starts a new segment: the canary and the breaker judge only what is sent from now on.
    await tx.redriveTask.update({ where: { id }, data: { status: 'running', pausedReason: null, pausedAt: null } });
    return audit(tx, actor, task, 'redrive.resume', reason, { result: task.pausedReason ? `was: ${task.pausedReason}` : undefined });
  });
}

/** Cancel: takes effect at the worker's next step (well within 2 s); what was sent stays sent, the rest is open again. */
export async function cancelRedrive(actor: Principal, id: string, input: RedriveCommandInput = {}, clock: Clock = systemClock): Promise<RedriveTask> {
  return taskCommand(actor, id, input, { verb: 'cancel', from: ACTIVE_REDRIVE_STATUSES }, async (tx, task, reason) => {
    await tx.redriveTask.update({ where: { id }, data: { status: 'cancelled', finishedAt: clock.now() } });
    // No runner holds the task (the lock is free): nothing is in flight, so let go of every unsent item.
    // Otherwise the runner lets go of its claimed batch when it sees the cancel.
    const [free] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${TASK_LOCK_CLASS}::int, hashtext(${id})) AS ok`;
    const released = await releaseUnsent(tx, id, { claimed: free?.ok === true });
    return audit(tx, actor, task, 'redrive.cancel', reason, { result: `${released} unsent dead letters open again`, clock });
  });
}

/** A lead's or admin's approval of a large redrive; four eyes: never the one who started it. */
export async function approveRedrive(actor: Principal, id: string, input: RedriveCommandInput = {}): Promise<RedriveTask> {
  return taskCommand(
    actor,
    id,
    input,
    { verb: 'approve', from: ['pending_approval'], permission: 'redrive.approve', nudge: true },
    async (tx, task, reason) => {
      await assertMayApprove(tx, actor, task);
      await tx.redriveTask.update({
        where: { id },
        data: { status: 'queued', approvedById: isSystem(actor) ? null : actor.userId, approvedAt: new Date() },
      });
      const { skipped } = await holdDeadLetters(tx, id);
      return audit(tx, actor, task, 'redrive.approve', reason, { result: skipped ? `${skipped} no longer open, skipped` : undefined });
    },
  );
}

const WORKER = { ...SYSTEM, label: 'redrive-worker' };

/** The worker's own pause (circuit breaker, failed canary), with the reason shown on the page. */
export async function autoPauseRedrive(id: string, reason: string, clock: Clock = systemClock): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const task = await lockTask(tx, WORKER, 'deadletters.redrive', id);
    if (task.status !== 'running') return false;
    await tx.redriveTask.update({ where: { id }, data: { status: 'paused', pausedAt: clock.now(), pausedReason: reason } });
    await audit(tx, WORKER, task, 'redrive.auto_pause', reason, { clock });
    return true;
  });
}

/**
 * The worker cannot run the task at all (its destination cannot be built: a redrive URL cleared, a
 * connector's settings broken): failed, with the reason on the page and the trail, and its unsent
 * dead letters open again. Retrying would only fail the same way every few seconds.
 */
export async function failRedrive(id: string, reason: string, clock: Clock = systemClock): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const task = await lockTask(tx, WORKER, 'deadletters.redrive', id);
    if (task.status !== 'running' && task.status !== 'queued') return false;
    await tx.redriveTask.update({ where: { id }, data: { status: 'failed', pausedReason: reason, finishedAt: clock.now() } });
    const released = await releaseUnsent(tx, id, { claimed: true });
    await audit(tx, WORKER, task, 'redrive.fail', reason, { result: `${released} unsent dead letters open again`, clock });
    return true;
  });
}

/** Every item final: the task is completed, its final figures on the trail (result and after). */
export async function finishRedrive(id: string, clock: Clock = systemClock): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const task = await lockTask(tx, WORKER, 'deadletters.redrive', id);
    if (task.status !== 'running') return false;
    await tx.redriveTask.update({ where: { id }, data: { status: 'completed', finishedAt: clock.now() } });
    const c = countsOf(task);
    await audit(tx, WORKER, task, 'redrive.finish', null, {
      result: `${c.sent} sent: ${c.acknowledged} acknowledged, ${c.deadAgain} dead again, ${c.noDeathSeen} no death seen, ${c.awaitingOutcome} awaiting outcome; ${c.skipped} skipped, ${c.failed} failed`,
      clock,
    });
    return true;
  });
}

/** A queued task starts running when a worker takes it. */
export async function markRunning(id: string, clock: Clock = systemClock): Promise<RedriveTask | null> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    UPDATE redrive_tasks SET status = CASE WHEN status = 'queued' THEN 'running'::"RedriveTaskStatus" ELSE status END,
      started_at = COALESCE(started_at, ${clock.now()}), updated_at = now()
    WHERE id = ${id}::uuid AND status IN ('queued', 'running') RETURNING id`;
  if (rows.length === 0) return null;
  return db().redriveTask.findUnique({ where: { id } });
}
