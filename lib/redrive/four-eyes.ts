// The one approval rule, for every task (a redrive, an edit, a transform, one a rule starts):
// - at the start, what the same person started on the source in the last hour adds to the task's
//   size, whatever their role, so a large change cut into small tasks still meets the threshold;
// - the approver is another person than everyone behind the task: not its starter, not the last
//   person who enabled the rule that started it, and not acting through a token that one of those
//   minted (an admin could mint a token for a lead and approve as that lead).
// The system (the CLI, the workers) is exempt at the start, and says so in the trail.
import type { RedriveTask } from '@/generated/prisma/client';
import type { Tx } from '@/lib/db';
import { holdDeadLetters } from '@/lib/intake/dead-letter-status';
import { isAssistant, isSystem, type Principal } from '@/lib/auth';
import { forbidden } from '@/lib/errors';

/** Four eyes counts what one person redrives from a source within this window, not per task. */
export const APPROVAL_WINDOW_MS = 60 * 60 * 1000;

/**
 * What `actor` started on the source in the last hour, in dead letters: a backlog cut into tasks
 * just under the threshold adds up. A task cancelled or failed before it sent anything redrove
 * nothing and does not count. Call it before the new task exists, so it is not counted twice.
 */
export async function startedRecently(tx: Tx, actor: Principal, sourceId: string, now: Date): Promise<number> {
  if (isSystem(actor)) return 0;
  const r = await tx.redriveTask.aggregate({
    _sum: { total: true },
    where: {
      sourceId,
      createdById: actor.userId,
      createdAt: { gte: new Date(now.getTime() - APPROVAL_WINDOW_MS) },
      NOT: { status: { in: ['cancelled', 'failed'] }, sent: 0 },
    },
  });
  return r._sum.total ?? 0;
}

export interface Thresholds {
  /** A task above it waits (the source's approvalThreshold). */
  approvalThreshold: number;
  /** Edited copies: a task of this many or more waits (the source's editApprovalThreshold). */
  editThreshold?: number;
}

/** Why a task of `count` waits for a second person, or null when it does not. */
export function waitsFor(actor: Principal, count: number, recent: number, t: Thresholds): string | null {
  if (isSystem(actor)) return null;
  const total = count + recent;
  const also = recent ? ` + ${recent} started by the same person in the last hour` : '';
  if (t.editThreshold !== undefined && total >= t.editThreshold) {
    return `waits for a second person: ${count} edited ${count === 1 ? 'copy' : 'copies'}${also} ≥ edit approval threshold ${t.editThreshold}`;
  }
  if (total > t.approvalThreshold) return `waits for approval: ${count}${also} > threshold ${t.approvalThreshold}`;
  return null;
}

/** Who an actor acts as, and who gave them the means: a token's minter. */
function peopleBehindApprover(actor: Principal): string[] {
  if (isSystem(actor)) return [];
  return [actor.userId, ...(actor.tokenMintedById ? [actor.tokenMintedById] : [])];
}

/** Refuse (403) an approver who is, or acts for, someone behind the task. */
export async function assertMayApprove(tx: Tx, actor: Principal, task: { createdById: string | null; ruleId: string | null }): Promise<void> {
  if (isSystem(actor)) return;
  // The second pair of eyes is a person's: an assistant's token is refused whoever holds it.
  if (isAssistant(actor))
    throw forbidden(
      'Four eyes: an assistant never approves; a person approves in Triage (the Redrives page or POST /api/v1/redrives/{id}/approve with their own token)',
    );
  const approver = peopleBehindApprover(actor);
  if (task.createdById && approver.includes(task.createdById)) {
    throw forbidden(
      actor.userId === task.createdById
        ? 'Four eyes: a redrive cannot be approved by the person who started it'
        : 'Four eyes: this token was minted by the person who started the redrive',
    );
  }
  if (task.ruleId) {
    const rule = await tx.redriveRule.findUnique({ where: { id: task.ruleId }, select: { enabledById: true } });
    if (rule?.enabledById && approver.includes(rule.enabledById)) {
      throw forbidden(
        actor.userId === rule.enabledById
          ? 'Four eyes: a redrive cannot be approved by the person who enabled the rule that started it'
          : 'Four eyes: this token was minted by the person who enabled the rule that started the redrive',
      );
    }
  }
}

/**
 * A new task whose items are written: it waits for a second person's approval (`pending`), or is
 * queued with its dead letters held for it.
 */
export async function settleNewTask(tx: Tx, taskId: string, total: number, pending: boolean): Promise<RedriveTask> {
  const task = await tx.redriveTask.update({ where: { id: taskId }, data: { total, status: pending ? 'pending_approval' : 'queued' } });
  if (pending) return task;
  await holdDeadLetters(tx, taskId);
  return tx.redriveTask.findUniqueOrThrow({ where: { id: taskId } });
}
