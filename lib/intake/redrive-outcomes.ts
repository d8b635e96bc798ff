// What became of each redriven message: acknowledged by its consumer, dead-lettered again, or no
// death seen within the task's outcome window. The broker runtime reports the first two (headers
// carry the dead letter id); a dead letter of the same message at a newer generation is also found
// by scanning (a connector's import brings it back so), so a missed signal never leaves the answer
// open; what is neither by the window's end is final as no death seen (finalizeOutcomes).
import { Prisma } from '@/generated/prisma/client';
import { append } from '@/lib/audit';
import { auditActor, SYSTEM } from '@/lib/auth';
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
    await closeDeadLetters(tx, [deadLetterId], 'redriven', {
      from: HELD_STATUSES,
      decidedById: item.createdById,
      reason: `Redriven by task ${item.taskId}: acknowledged`,
    });
  } else {
    // Its new death is a newer dead letter (next generation), open in its own right: this one is
    // decided. Without one (a consumer that reported but did not park it), it is open again.
    // Redriven to another source, it dies there: linked by the original message id across the two.
    // Through the key table (unique id, unique key), each row then by (id, dead_at) in its partition:
    // by id alone the planner, knowing no uniqueness, hashed a scan of the partitions for every outcome.
    const [newer] = await tx.$queryRaw<{ id: bigint }[]>`
      SELECT nk.id FROM dead_letter_keys d
      JOIN redrive_tasks t ON t.id = ${item.taskId}::uuid
      JOIN dead_letter_keys nk ON nk.source_id = COALESCE(t.destination_source_id, d.source_id) AND nk.message_id = d.message_id
      JOIN dead_letters n ON n.id = nk.id AND n.dead_at = nk.dead_at
      WHERE d.id = ${deadLetterId} AND nk.id <> d.id
        AND (nk.generation > d.generation OR (nk.source_id <> d.source_id AND n.created_at >= t.created_at))
      ORDER BY nk.generation DESC, nk.id DESC LIMIT 1`;
    if (newer) {
      await closeDeadLetters(tx, [deadLetterId], 'redriven', {
        from: HELD_STATUSES,
        decidedById: item.createdById,
        reason: `Redriven by task ${item.taskId}: dead again as ${newer.id}`,
      });
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
 * scanning the task's items. An item already final as "no death seen" is found too when its death
 * happened within its window (the broker's time of death, `dead_at`): an import behind the broker
 * (paused, failing, or slow under load) brought the death back late, and the verdict was wrong.
 * Connectors whose broker tells no time of death (SQS, Azure Queue Storage: `dead_at` is the
 * import's time) cannot be corrected so.
 */
export async function detectDeadAgain(task: { id: string; sourceId: string; destinationSourceId?: string | null; since: Date }, limit = 1000): Promise<number> {
  // A task into another source finds the deaths there, by the original message id.
  const into = task.destinationSourceId ?? task.sourceId;
  // Back in its own source, a redriven message dies as a newer generation: only those rows are read
  // (their partial index), not every open dead letter since the task began, which a storm makes
  // millions. Into another source its death may be a first one there (generation 0).
  const redrivenOnly = into === task.sourceId ? Prisma.sql`AND n.generation > 0` : Prisma.empty;
  // In steps the planner cannot reorder (MATERIALIZED): the new deaths, then the earlier generations
  // through the key table's unique index, then the task's items. Left to itself, on a month's
  // partition not analyzed yet, it walked the task's items and rescanned the new deaths for each.
  const rows = await db().$queryRaw<{ deadLetterId: bigint; at: Date }[]>`
    WITH n AS MATERIALIZED (
      SELECT n.source_id, n.message_id, n.generation, n.dead_at FROM dead_letters n
      WHERE n.source_id = ${into}::uuid AND n.status = 'open' AND n.created_at >= ${task.since} ${redrivenOnly}),
    d AS MATERIALIZED (
      SELECT k.id, n.dead_at FROM n
      JOIN dead_letter_keys k ON k.source_id = ${task.sourceId}::uuid AND k.message_id = n.message_id AND (k.generation < n.generation OR k.source_id <> n.source_id)
      WHERE n.generation > 0 OR n.source_id <> k.source_id)
    SELECT i.dead_letter_id AS "deadLetterId", d.dead_at AS at
    FROM d JOIN redrive_items i ON i.task_id = ${task.id}::uuid AND i.dead_letter_id = d.id
      JOIN redrive_tasks t ON t.id = i.task_id
      AND (i.state = 'sent' OR (i.state = 'no_death_seen' AND d.dead_at <= i.sent_at + t.outcome_window_ms * interval '1 millisecond'))
    LIMIT ${limit}`;
  let found = 0;
  for (let i = 0; i < rows.length; i += DEAD_AGAIN_BATCH) {
    const chunk = rows.slice(i, i + DEAD_AGAIN_BATCH);
    try {
      found += await db().$transaction((tx) => recordDeadAgain(tx, task.id, chunk));
    } catch (err) {
      log.warn({ err, taskId: task.id, items: chunk.length }, 'could not record dead-again outcomes; the next scan retries');
    }
  }
  return found;
}

/** Dead-again outcomes recorded in one transaction by detectDeadAgain. */
const DEAD_AGAIN_BATCH = 250;

/**
 * applyOutcome's 'dead_again' for many items of one task at once (a scan finds hundreds together;
 * one transaction each took 30-60 ms on the loaded machine, so 500 outran a 30 s wait). The same
 * steps: the items still awaiting an outcome, locked in the order finalizeOutcomes locks them
 * (sent_at); each dead letter decided 'redriven' when a newer death exists, else open again; the
 * task's counters last. A late death turns "no death seen" into dead again: its dead letter is
 * already decided 'redriven', and its reason now names the newer one. Returns how many items were
 * updated.
 */
async function recordDeadAgain(tx: Tx, taskId: string, found: { deadLetterId: bigint; at: Date }[]): Promise<number> {
  const atOf = new Map(found.map((f) => [f.deadLetterId, f.at]));
  const items = await tx.$queryRaw<{ seq: number; deadLetterId: bigint; pending: boolean; late: boolean; createdById: string | null }[]>`
    SELECT i.seq, i.dead_letter_id AS "deadLetterId", i.state = 'pending' AS pending, i.state = 'no_death_seen' AS late,
      t.created_by_id AS "createdById"
    FROM redrive_items i JOIN redrive_tasks t ON t.id = i.task_id
    WHERE i.task_id = ${taskId}::uuid AND i.dead_letter_id = ANY(${[...atOf.keys()]}::bigint[])
      AND (i.state = 'sent' OR (i.state = 'pending' AND i.attempts > 0) OR i.state = 'no_death_seen')
    ORDER BY i.sent_at, i.seq
    FOR UPDATE OF i`;
  if (items.length === 0) return 0;
  const ids = items.map((i) => i.deadLetterId);
  await tx.$executeRaw`
    UPDATE redrive_items i SET state = 'dead_again', outcome_at = v.at, sent_at = COALESCE(i.sent_at, v.at)
    FROM unnest(${items.map((i) => i.seq)}::int[], ${items.map((i) => atOf.get(i.deadLetterId)!.toISOString())}::timestamptz[]) AS v(seq, at)
    WHERE i.task_id = ${taskId}::uuid AND i.seq = v.seq`;
  // Each one's newest death, as applyOutcome finds it.
  const newer = await tx.$queryRaw<{ deadLetterId: bigint; newerId: bigint }[]>`
    SELECT DISTINCT ON (d.id) d.id AS "deadLetterId", nk.id AS "newerId" FROM dead_letter_keys d
    JOIN redrive_tasks t ON t.id = ${taskId}::uuid
    JOIN dead_letter_keys nk ON nk.source_id = COALESCE(t.destination_source_id, d.source_id) AND nk.message_id = d.message_id
    JOIN dead_letters n ON n.id = nk.id AND n.dead_at = nk.dead_at
    WHERE d.id = ANY(${ids}::bigint[]) AND nk.id <> d.id
      AND (nk.generation > d.generation OR (nk.source_id <> d.source_id AND n.created_at >= t.created_at))
    ORDER BY d.id, nk.generation DESC, nk.id DESC`;
  const newerOf = new Map(newer.map((r) => [r.deadLetterId, r.newerId]));
  const decided = ids.filter((id) => newerOf.has(id));
  const reason = `Redriven by task ${taskId}: dead again as `;
  // Late ones were decided 'redriven' already, as no death seen by this task: only their reason
  // changes (first, so that rows are locked before clusters, as closeDeadLetters locks them).
  const lateIds = new Set(items.filter((i) => i.late).map((i) => i.deadLetterId));
  const late = decided.filter((id) => lateIds.has(id));
  if (late.length)
    await nameNewer(
      tx,
      late,
      newerOf,
      reason,
      Prisma.sql`AND d.status = 'redriven' AND d.decision_reason LIKE ${`Redriven by task ${taskId}: no death seen%`}`,
    );
  const moved = await closeDeadLetters(tx, decided, 'redriven', { from: HELD_STATUSES, decidedById: items[0]!.createdById, reason });
  // The reason names each one's newer dead letter (closeDeadLetters takes one reason for all).
  if (moved.length)
    await nameNewer(
      tx,
      moved.map((m) => m.id),
      newerOf,
      reason,
      Prisma.empty,
    );
  await reopenDeadLetters(
    tx,
    ids.filter((id) => !newerOf.has(id) && !lateIds.has(id)),
  );
  const wasPending = items.filter((i) => i.pending).length;
  await tx.$executeRaw`
    UPDATE redrive_tasks SET dead_again = dead_again + ${items.length}, sent = sent + ${wasPending},
      no_death_seen = no_death_seen - ${lateIds.size}, updated_at = now()
    WHERE id = ${taskId}::uuid`;
  if (lateIds.size) await recordCorrection(tx, taskId, lateIds.size);
  return items.length;
}

/** Each dead letter's decision reason names its newer dead letter: `reason` + its id. */
async function nameNewer(tx: Tx, ids: bigint[], newerOf: Map<bigint, bigint>, reason: string, only: Prisma.Sql): Promise<void> {
  await tx.$executeRaw`
    UPDATE dead_letters d SET decision_reason = ${reason} || v.newer::text
    FROM unnest(${ids}::bigint[], ${ids.map((id) => newerOf.get(id)!)}::bigint[]) AS v(id, newer)
    JOIN dead_letter_keys k ON k.id = v.id
    WHERE d.id = k.id AND d.dead_at = k.dead_at ${only}`;
}

/**
 * A verdict changed after the fact goes on the trail: the task's page now says otherwise than
 * what a person (or the canary, or a rule) may already have acted on.
 */
async function recordCorrection(tx: Tx, taskId: string, corrected: number): Promise<void> {
  const [t] = await tx.$queryRaw<
    { sourceId: string; teamId: string; status: string; total: number; acknowledged: number; deadAgain: number; noDeathSeen: number }[]
  >`
    SELECT t.source_id AS "sourceId", s.team_id AS "teamId", t.status::text AS status, t.total, t.acknowledged, t.dead_again AS "deadAgain",
      t.no_death_seen AS "noDeathSeen"
    FROM redrive_tasks t JOIN sources s ON s.id = t.source_id WHERE t.id = ${taskId}::uuid`;
  if (!t) return;
  log.warn({ taskId, corrected }, 'late deaths: no death seen corrected to dead again');
  await append(tx, {
    actor: auditActor({ ...SYSTEM, label: 'redrive-worker' }),
    action: 'redrive.outcomes_corrected',
    targetType: 'redrive_task',
    targetId: taskId,
    teamId: t.teamId,
    sourceId: t.sourceId,
    count: corrected,
    reason: null,
    result: `${corrected} no death seen corrected to dead again: their deaths, within the outcome window, were imported after it ended; now ${t.acknowledged} acknowledged, ${t.deadAgain} dead again, ${t.noDeathSeen} no death seen`,
    after: { status: t.status, acknowledged: t.acknowledged, deadAgain: t.deadAgain, noDeathSeen: t.noDeathSeen },
  });
}

/** Items finalized at once: a window ending over a fast task's sends is closed in bounded steps. */
const FINALIZE_BATCH = 2_000;

export interface FinalizeScope {
  id: string;
  sourceId: string;
  /** Redriven into another source: where its deaths come back. */
  destinationSourceId?: string | null;
  /** The task's start: deaths recorded since then are scanned for (detectDeadAgain). */
  since: Date;
  createdById: string | null;
}

/**
 * Sent items whose outcome window ended by `now` (sent_at + windowMs <= now) become final: first a
 * scan for deaths (so one that came back in time counts as dead again), then the rest are "no
 * death seen" and their dead letters `redriven` (no longer in Triage's hands). `seq` narrows it to
 * one item (the canary, with its own window). Works from Postgres alone, so a restarted worker
 * finalizes what a killed one left. Returns how many became no_death_seen.
 */
export async function finalizeOutcomes(task: FinalizeScope, now: Date, opts: { windowMs: number; seq?: number }): Promise<number> {
  const cutoff = new Date(now.getTime() - opts.windowMs);
  const one = opts.seq === undefined ? Prisma.empty : Prisma.sql`AND seq = ${opts.seq}`;
  const [due] = await db().$queryRaw<{ due: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM redrive_items WHERE task_id = ${task.id}::uuid AND state = 'sent' AND sent_at <= ${cutoff} ${one}) AS due`;
  if (!due?.due) return 0;
  await detectDeadAgain(task, 100_000);
  let total = 0;
  for (;;) {
    const n = await db().$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ deadLetterId: bigint }[]>`
        UPDATE redrive_items i SET state = 'no_death_seen', outcome_at = ${now}
        FROM (SELECT seq FROM redrive_items WHERE task_id = ${task.id}::uuid AND state = 'sent' AND sent_at <= ${cutoff} ${one}
              ORDER BY sent_at LIMIT ${FINALIZE_BATCH} FOR UPDATE) due
        WHERE i.task_id = ${task.id}::uuid AND i.seq = due.seq
        RETURNING i.dead_letter_id AS "deadLetterId"`;
      if (rows.length === 0) return 0;
      await closeDeadLetters(
        tx,
        rows.map((r) => r.deadLetterId),
        'redriven',
        {
          from: HELD_STATUSES,
          decidedById: task.createdById,
          reason: `Redriven by task ${task.id}: no death seen within ${Math.round(opts.windowMs / 1000)} s`,
          at: now,
        },
      );
      await tx.$executeRaw`
        UPDATE redrive_tasks SET no_death_seen = no_death_seen + ${rows.length}, updated_at = now() WHERE id = ${task.id}::uuid`;
      return rows.length;
    });
    total += n;
    if (n < FINALIZE_BATCH) return total;
  }
}

/** When the task was last resumed (its latest `redrive.resume` event), or null. */
export async function lastResumedAt(taskId: string): Promise<Date | null> {
  const [r] = await db().$queryRaw<{ at: Date | null }[]>`
    SELECT max(at) AS at FROM audit_events WHERE target_type = 'redrive_task' AND target_id = ${taskId} AND action = 'redrive.resume'`;
  return r?.at ?? null;
}

export interface OutcomeCounts {
  sent: number;
  acknowledged: number;
  deadAgain: number;
  noDeathSeen: number;
  failed: number;
}

/** The task's outcomes of what it sent from `at` on, and of what it sent before. */
export async function outcomesAround(taskId: string, at: Date): Promise<{ since: OutcomeCounts; before: OutcomeCounts }> {
  const rows = await db().$queryRaw<{ after: boolean; state: string; n: bigint }[]>`
    SELECT coalesce(sent_at, outcome_at) >= ${at} AS after, state::text, count(*) AS n FROM redrive_items
    WHERE task_id = ${taskId}::uuid AND state IN ('sent', 'acknowledged', 'dead_again', 'no_death_seen', 'failed')
    GROUP BY 1, 2`;
  const counts = (after: boolean): OutcomeCounts => {
    const n = (state: string) => Number(rows.find((r) => r.after === after && r.state === state)?.n ?? 0);
    const failed = n('failed');
    return {
      sent: n('sent') + n('acknowledged') + n('dead_again') + n('no_death_seen'),
      acknowledged: n('acknowledged'),
      deadAgain: n('dead_again'),
      noDeathSeen: n('no_death_seen'),
      failed,
    };
  };
  return { since: counts(true), before: counts(false) };
}
