// What became of each redriven message: acknowledged by its consumer, or dead-lettered again. The
// broker runtime reports both (headers carry the dead letter id); a dead letter of the same message
// at a newer generation is also found by scanning, so a missed signal never leaves the answer open.
import { db, type Tx } from '@/lib/db';
import { log } from '@/lib/log';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import { HELD_STATUSES, reopenDeadLetters } from './dead-letter-status';

export type RedriveOutcome = 'acknowledged' | 'dead_again';

export interface RedriveOutcomeInput {
  /** The dead letter the message was redriven from (header Triage-Dead-Letter-Id). */
  deadLetterId: string | bigint;
  outcome: RedriveOutcome;
  at?: Date;
}

/**
 * Record the outcome of a redriven message on its item, its task's counters and its dead letter
 * (acknowledged → 'redriven', leaving the open counts). Idempotent: a second report for the same
 * message (a duplicate delivery) finds no item awaiting an outcome and changes nothing. Returns
 * whether an item was updated.
 */
export async function recordRedriveOutcome(input: RedriveOutcomeInput): Promise<boolean> {
  const id = String(input.deadLetterId);
  if (!/^\d{1,19}$/.test(id)) return false;
  const at = input.at ?? new Date();
  return db().$transaction((tx) => applyOutcome(tx, BigInt(id), input.outcome, at));
}

async function applyOutcome(tx: Tx, deadLetterId: bigint, outcome: RedriveOutcome, at: Date): Promise<boolean> {
  // An item still 'pending' with an attempt is in flight: its outcome can beat the worker's "sent" mark.
  const [item] = await tx.$queryRaw<{ taskId: string; seq: number; state: string; createdById: string | null }[]>`
    SELECT i.task_id AS "taskId", i.seq, i.state::text AS state, t.created_by_id AS "createdById"
    FROM redrive_items i JOIN redrive_tasks t ON t.id = i.task_id
    WHERE i.dead_letter_id = ${deadLetterId} AND (i.state = 'sent' OR (i.state = 'pending' AND i.attempts > 0))
    ORDER BY t.created_at DESC LIMIT 1
    FOR UPDATE OF i`;
  if (!item) return false;
  const wasPending = item.state === 'pending' ? 1 : 0;
  await tx.$executeRaw`
    UPDATE redrive_items SET state = ${outcome}::"RedriveItemState", outcome_at = ${at}, sent_at = COALESCE(sent_at, ${at})
    WHERE task_id = ${item.taskId}::uuid AND seq = ${item.seq}`;
  if (outcome === 'acknowledged') {
    await closeDeadLetters(tx, [deadLetterId], 'redriven', { from: HELD_STATUSES, decidedById: item.createdById, reason: `Redriven by task ${item.taskId}: acknowledged` });
  } else {
    // Its new death is a newer dead letter (next generation), open in its own right: this one is
    // decided. Without one (a consumer that reported but did not park it), it is open again.
    const [newer] = await tx.$queryRaw<{ id: bigint }[]>`
      SELECT n.id FROM dead_letters d JOIN dead_letters n ON n.source_id = d.source_id AND n.message_id = d.message_id AND n.generation > d.generation
      WHERE d.id = ${deadLetterId} ORDER BY n.generation DESC LIMIT 1`;
    if (newer) {
      await closeDeadLetters(tx, [deadLetterId], 'redriven', { from: HELD_STATUSES, decidedById: item.createdById, reason: `Redriven by task ${item.taskId}: dead again as ${newer.id}` });
    } else await reopenDeadLetters(tx, [deadLetterId]);
  }
  // The task's counters last: every outcome of a running task updates this one row, so its lock is
  // held only for the commit.
  const ack = outcome === 'acknowledged' ? 1 : 0;
  await tx.$executeRaw`
    UPDATE redrive_tasks SET acknowledged = acknowledged + ${ack}, dead_again = dead_again + ${1 - ack}, sent = sent + ${wasPending}, updated_at = now()
    WHERE id = ${item.taskId}::uuid`;
  return true;
}

/**
 * Items of a task sent back whose message has since died again: a newer generation of the same
 * message, recorded since the task began. Looked up from the source's open dead letters, not by
 * scanning the task's items.
 */
export async function detectDeadAgain(task: { id: string; sourceId: string; since: Date }, limit = 1000): Promise<number> {
  const rows = await db().$queryRaw<{ deadLetterId: bigint; at: Date }[]>`
    SELECT i.dead_letter_id AS "deadLetterId", n.dead_at AS at
    FROM dead_letters n
    JOIN dead_letters d ON d.source_id = n.source_id AND d.message_id = n.message_id AND d.generation < n.generation
    JOIN redrive_items i ON i.dead_letter_id = d.id AND i.task_id = ${task.id}::uuid AND i.state = 'sent'
    WHERE n.source_id = ${task.sourceId}::uuid AND n.status = 'open' AND n.created_at >= ${task.since} AND n.generation > 0
    LIMIT ${limit}`;
  let found = 0;
  for (const r of rows) {
    try {
      if (await recordRedriveOutcome({ deadLetterId: r.deadLetterId, outcome: 'dead_again', at: r.at })) found++;
    } catch (err) {
      log.warn({ err, taskId: task.id, deadLetterId: r.deadLetterId.toString() }, 'could not record a dead-again outcome; the next scan retries');
    }
  }
  return found;
}
