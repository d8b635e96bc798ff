// Runs one redrive task until it is done, paused, cancelled or the worker stops. Every step works
// from Postgres: claim the next items (attempts + 1) → send → mark them sent, so a crash between
// send and mark re-sends only the batches in flight (the consumer deduplicates on the original
// message id in the headers), and a restart continues at the persisted progress, paced from there.
// The next items are claimed ahead, while the pace waits and earlier batches are still being
// delivered (up to MAX_IN_FLIGHT at once), so neither a slow claim nor a slow destination takes its
// time out of the pace: the pacer alone decides when sends go.
// A sent item is final when acknowledged, dead again, or at the end of the task's outcome window
// (no death seen); the task completes when every item is final. The windows are sent_at in Postgres
// plus the task's window, closed by a query (finalizeOutcomes), so a restart keeps them.
import { randomUUID } from 'node:crypto';
import { sleep, type Clock } from '@/lib/clock';
import { db } from '@/lib/db';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import { log } from '@/lib/log';
import { evaluateBreaker, BREAKER_DEFAULTS, CANARY_REASON_PREFIX } from './breaker';
import { autoPauseRedrive, failRedrive, finishRedrive, markRunning } from './control-redrive';
import { GONE_PREFIX, HELD_STATUSES, releaseUnsent, reopenDeadLetters } from '@/lib/intake/dead-letter-status';
import { destinationFor, type DeliveryResult, type DestinationSource, type OutgoingRedrive, type RedriveDestination } from './destinations';
import { detectDeadAgain, finalizeOutcomes, lastResumedAt } from '@/lib/intake/redrive-outcomes';
import { Pacer, type RatePlan } from './rate-plan';
import { releaseRunnerLease, renewRunnerLease, RUNNER_RENEW_MS, takeRunnerLease } from './runner-lease';

export interface RunnerOptions {
  /** Stop after the batch in flight (worker shutdown). */
  stop?: AbortSignal;
  httpTimeoutMs?: number;
  maxBatch?: number;
  /** Payload bytes one claim may hold (the first item always fits): memory follows bytes, not rows. */
  maxBatchBytes?: number;
  /** How often the task's status is re-read: a pause or cancel takes effect within this. */
  statusPollMs?: number;
  /** Attempts of an HTTP delivery before the item is failed. */
  maxHttpAttempts?: number;
  /** Batches in delivery at once (a destination may allow fewer). */
  maxInFlight?: number;
  /** Wall clock in ms: pacing, send times and the outcome windows (tests move it on). */
  clock?: () => number;
  /** Where the items go; the source's own destination unless given (the demo history answers for its past consumers). */
  destination?: RedriveDestination;
  /**
   * Who holds the task's runner lease: the supervisor's per-process id, so the same process takes
   * a task up again at once after its runner failed (Postgres away, the lease not released); a new
   * id per run when not given.
   */
  runnerId?: string;
  /** Where a source's dead letters go (tests wrap a real destination to script per-item failure kinds). */
  destinationFor?: (source: DestinationSource, opts: { httpTimeoutMs?: number }) => RedriveDestination;
}

export type RunEnd = 'completed' | 'paused' | 'cancelled' | 'failed' | 'stopped' | 'not runnable';

/** A claim's payload bytes: 200 dead letters of 10 MiB would otherwise be 2 GiB in memory and in flight at once. */
export const REDRIVE_BATCH_BYTES = 8 << 20;
/**
 * Batches in delivery at once: at 1,000/s a batch is 25–50 sends, so 8 cover a destination that
 * takes up to 200 ms a batch (an HTTP call per message, a far broker) without losing the pace.
 */
export const MAX_IN_FLIGHT = 8;
/** Claimed ahead of the pace, in bursts: 5 bursts of 50 ms, a quarter second's sends. */
const CLAIM_AHEAD_BURSTS = 5;
const DEFAULTS = {
  maxBatch: 200,
  maxBatchBytes: REDRIVE_BATCH_BYTES,
  statusPollMs: 200,
  maxHttpAttempts: 5,
  checkEveryMs: 500,
  maxInFlight: MAX_IN_FLIGHT,
} as const;
const DEAD_AGAIN_SCAN_MS = 5_000;
const httpBackoffMs = (attempt: number) => Math.min(500 * 2 ** (attempt - 1), 8_000);
/** The destination's infrastructure away (a broker down): 1 s, doubling per failure in a row, up to 30 s. */
const infraBackoffMs = (failures: number) => Math.min(1_000 * 2 ** (failures - 1), 30_000);

interface ClaimedItem extends OutgoingRedrive {
  seq: number;
  status: string;
}

interface Settled {
  seq: number;
  state: 'sent' | 'acknowledged' | 'skipped' | 'failed';
  sentAt: Date | null;
  error: string | null;
}

function ratePlanOf(task: { ratePerSecond: number; ramp: unknown }): RatePlan {
  const ramp = task.ramp as { steps?: unknown; stepSeconds?: unknown } | null;
  const steps = Array.isArray(ramp?.steps) ? ramp.steps.filter((s): s is number => typeof s === 'number' && s > 0) : [];
  const stepSeconds = typeof ramp?.stepSeconds === 'number' ? ramp.stepSeconds : 0;
  return { ratePerSecond: task.ratePerSecond, ramp: steps.length && stepSeconds > 0 ? { steps, stepSeconds } : null };
}

/**
 * Claim up to `n` pending items in seq order, with their dead letters, as many as fit in `maxBytes`
 * of payload (at least one), but none of `inFlight` (claimed by this runner, still being delivered:
 * pending until settled); null when the task is not running.
 */
async function claim(taskId: string, runner: string, n: number, maxBytes: number, inFlight: number[]): Promise<ClaimedItem[] | null> {
  const rows = await db().$queryRaw<
    {
      seq: number;
      deadLetterId: bigint;
      messageId: string;
      payload: Uint8Array | null;
      contentType: string | null;
      headers: unknown;
      origin: unknown;
      redriveCount: number;
      status: string;
      enqueuedAt: Date | null;
      orderingKey: string | null;
      idempotencyKey: string | null;
      correlationId: string | null;
    }[]
  >`
    WITH running AS (
      -- KEY SHARE: waits for a pause or cancel in progress (they lock the row FOR UPDATE), so a cancel
      -- never lets go of an item claimed at the same moment; the counter updates do not conflict.
      -- Only the lease holder's claims return items: a second runner of the task sends nothing.
      SELECT id FROM redrive_tasks WHERE id = ${taskId}::uuid AND status = 'running' AND runner_id = ${runner}::uuid FOR KEY SHARE),
    candidates AS (
      SELECT i.seq, i.dead_letter_id, i.version_id FROM redrive_items i JOIN running t ON t.id = i.task_id
      WHERE i.state = 'pending' AND i.seq <> ALL(${inFlight}::int[]) ORDER BY i.seq LIMIT ${n}),
    -- octet_length of a stored bytea reads its size, not its bytes: the bound costs no payload reads.
    -- The size is that of what goes out: the edited version when the item names one.
    -- Each dead letter by (id, dead_at), its partition's primary key: the key table (unique id) gives
    -- dead_at. By id alone the planner, with no uniqueness to go on, hashed a scan of every partition.
    sized AS (
      SELECT c.seq, c.dead_letter_id, dk.dead_at, c.version_id,
        sum(coalesce(octet_length(v.payload), octet_length(d.payload), 0)) OVER (ORDER BY c.seq) AS upto,
        row_number() OVER (ORDER BY c.seq) AS k
      FROM candidates c JOIN dead_letter_keys dk ON dk.id = c.dead_letter_id
      JOIN dead_letters d ON d.id = dk.id AND d.dead_at = dk.dead_at LEFT JOIN dead_letter_versions v ON v.id = c.version_id),
    next AS (SELECT seq, dead_letter_id, dead_at, version_id FROM sized WHERE upto <= ${maxBytes} OR k = 1)
    UPDATE redrive_items i SET attempts = i.attempts + 1
    -- An edited copy goes out instead of the original bytes when the item names a version.
    FROM next JOIN dead_letters d ON d.id = next.dead_letter_id AND d.dead_at = next.dead_at LEFT JOIN dead_letter_versions v ON v.id = next.version_id
    WHERE i.task_id = ${taskId}::uuid AND i.seq = next.seq
    RETURNING i.seq, d.id AS "deadLetterId", d.message_id AS "messageId", COALESCE(v.payload, d.payload) AS payload,
      CASE WHEN v.id IS NULL THEN d.content_type ELSE v.content_type END AS "contentType", COALESCE(v.headers, d.headers) AS headers,
      d.headers AS origin,
      d.redrive_count AS "redriveCount", d.status::text AS status, d.enqueued_at AS "enqueuedAt", d.ordering_key AS "orderingKey",
      d.idempotency_key AS "idempotencyKey", d.correlation_id AS "correlationId"`;
  if (rows.length === 0) {
    const [t] = await db().$queryRaw<{ status: string; mine: boolean }[]>`
      SELECT status::text AS status, runner_id IS NOT DISTINCT FROM ${runner}::uuid AS mine FROM redrive_tasks WHERE id = ${taskId}::uuid`;
    return t?.status === 'running' && t.mine ? [] : null;
  }
  return rows
    .sort((a, b) => a.seq - b.seq)
    .map((r) => ({
      ...r,
      payload: r.payload ?? new Uint8Array(),
      headers: r.headers && typeof r.headers === 'object' ? (r.headers as Record<string, unknown>) : {},
      origin: r.origin && typeof r.origin === 'object' ? (r.origin as Record<string, unknown>) : {},
    }));
}

/**
 * Record what happened to claimed items. The common case, a batch put on a queue, is one statement:
 * items marked sent and the task's counter raised together. Otherwise (acknowledged, skipped,
 * failed items change their dead letters too) one transaction, then the counters apart:
 * consumers' outcome reports update the task row many times a second, and holding its lock across
 * the batch would stall the pace. A crash between the two is healed by the recount at the next start.
 */
async function settle(taskId: string, createdById: string | null, results: Settled[], at: Date): Promise<void> {
  if (results.length === 0) return;
  if (results.every((r) => r.state === 'sent')) {
    await db().$executeRaw`
      WITH marked AS (
        UPDATE redrive_items i SET state = 'sent', sent_at = x.sent_at::timestamptz, error = NULL
        FROM unnest(${results.map((r) => r.seq)}::int[], ${results.map((r) => r.sentAt!.toISOString())}::text[]) AS x(seq, sent_at)
        WHERE i.task_id = ${taskId}::uuid AND i.seq = x.seq AND i.state = 'pending'
        RETURNING 1)
      UPDATE redrive_tasks SET sent = sent + (SELECT count(*) FROM marked), updated_at = now() WHERE id = ${taskId}::uuid`;
    return;
  }
  const done = await db().$transaction(async (tx) => {
    const now = at.toISOString();
    const rows = await tx.$queryRaw<{ state: Settled['state']; deadLetterId: bigint }[]>`
      UPDATE redrive_items i
      SET state = x.state::"RedriveItemState", sent_at = x.sent_at::timestamptz, error = x.error,
          outcome_at = CASE WHEN x.state IN ('acknowledged', 'skipped', 'failed') THEN ${now}::timestamptz END
      FROM unnest(${results.map((r) => r.seq)}::int[], ${results.map((r) => r.state)}::text[],
                  ${results.map((r) => r.sentAt?.toISOString() ?? null)}::text[], ${results.map((r) => r.error)}::text[]) AS x(seq, state, sent_at, error)
      WHERE i.task_id = ${taskId}::uuid AND i.seq = x.seq AND i.state = 'pending'
      RETURNING x.state AS state, i.dead_letter_id AS "deadLetterId"`;
    const ids = (s: Settled['state']) => rows.filter((d) => d.state === s).map((d) => d.deadLetterId);
    await closeDeadLetters(tx, ids('acknowledged'), 'redriven', {
      from: HELD_STATUSES,
      decidedById: createdById,
      reason: `Redriven by task ${taskId}: acknowledged`,
      at,
    });
    await reopenDeadLetters(tx, [...ids('skipped'), ...ids('failed')]);
    return rows;
  });
  const n = (s: Settled['state']) => done.filter((d) => d.state === s).length;
  await db().$executeRaw`
    UPDATE redrive_tasks SET sent = sent + ${n('sent') + n('acknowledged')}, acknowledged = acknowledged + ${n('acknowledged')},
      skipped = skipped + ${n('skipped')}, failed = failed + ${n('failed')}, updated_at = now()
    WHERE id = ${taskId}::uuid`;
}

/** The counters exactly as the items say (at each start: heals a crash between settle's two steps). */
async function recount(taskId: string): Promise<void> {
  await db().$executeRaw`
    UPDATE redrive_tasks t SET sent = c.sent, acknowledged = c.acknowledged, dead_again = c.dead_again, no_death_seen = c.no_death_seen,
      skipped = c.skipped, failed = c.failed
    FROM (SELECT count(*) FILTER (WHERE state IN ('sent', 'acknowledged', 'dead_again', 'no_death_seen')) AS sent,
                 count(*) FILTER (WHERE state = 'acknowledged') AS acknowledged, count(*) FILTER (WHERE state = 'dead_again') AS dead_again,
                 count(*) FILTER (WHERE state = 'no_death_seen') AS no_death_seen,
                 count(*) FILTER (WHERE state = 'skipped') AS skipped, count(*) FILTER (WHERE state = 'failed') AS failed
          FROM redrive_items WHERE task_id = ${taskId}::uuid) c
    WHERE t.id = ${taskId}::uuid`;
}

async function recordAttemptFailure(taskId: string, seqs: number[], error: string): Promise<void> {
  await db().$executeRaw`
    UPDATE redrive_items SET attempts = attempts + 1, error = ${error}
    WHERE task_id = ${taskId}::uuid AND seq = ANY(${seqs}::int[]) AND state = 'pending'`;
}

/** Items the destination's infrastructure could not take: still pending (claimed again later), with why. */
async function recordUnavailable(taskId: string, seqs: number[], error: string): Promise<void> {
  await db().$executeRaw`
    UPDATE redrive_items SET error = ${error}
    WHERE task_id = ${taskId}::uuid AND seq = ANY(${seqs}::int[]) AND state = 'pending'`;
}

/** When the current segment began: the first start, or the last resume (a canary task sends a canary first again). */
async function segmentStart(taskId: string, startedAt: Date | null, now: Date): Promise<Date> {
  const resumed = await lastResumedAt(taskId);
  const started = startedAt ?? now;
  return resumed && resumed > started ? resumed : started;
}

type CanaryState =
  | { kind: 'passed' }
  | { kind: 'dead'; messageId: string; state: string }
  | { kind: 'waiting'; seq: number; sentAt: Date | null }
  | { kind: 'send' };

// Segment starts and send times come from different processes' clocks (app, worker): a little slack.
const CLOCK_SLACK_MS = 2_000;

/**
 * Where the canary stands: the one this runner sent (by seq), or after a restart the latest one
 * sent since the segment began. Acknowledged, or its canary window over with no death seen, opens
 * the gate; dead again (or undelivered) pauses.
 */
async function canaryState(taskId: string, since: Date, canarySeq: number | null): Promise<CanaryState> {
  type Row = { seq: number; state: string; messageId: string; sentAt: Date | null };
  const rows =
    canarySeq !== null
      ? await db().$queryRaw<Row[]>`
          SELECT i.seq, i.state::text AS state, d.message_id AS "messageId", i.sent_at AS "sentAt" FROM redrive_items i JOIN dead_letter_keys d ON d.id = i.dead_letter_id
          WHERE i.task_id = ${taskId}::uuid AND i.seq = ${canarySeq}`
      : await db().$queryRaw<Row[]>`
          SELECT i.seq, i.state::text AS state, d.message_id AS "messageId", i.sent_at AS "sentAt" FROM redrive_items i JOIN dead_letter_keys d ON d.id = i.dead_letter_id
          WHERE i.task_id = ${taskId}::uuid AND i.sent_at >= ${new Date(since.getTime() - CLOCK_SLACK_MS)}
            AND i.state IN ('sent', 'acknowledged', 'no_death_seen', 'dead_again', 'failed')
          ORDER BY (i.state IN ('acknowledged', 'no_death_seen')) DESC, i.outcome_at DESC NULLS LAST LIMIT 1`;
  const r = rows[0];
  if (!r || r.state === 'skipped') return { kind: 'send' };
  if (r.state === 'acknowledged' || r.state === 'no_death_seen') return { kind: 'passed' };
  if (r.state === 'sent' || r.state === 'pending') return { kind: 'waiting', seq: r.seq, sentAt: r.sentAt };
  return { kind: 'dead', messageId: r.messageId, state: r.state };
}

/**
 * The breaker's window, from the task's outcome counters as they move (so no scan of the items):
 * each change adds its successes (acknowledged, no death seen) and dead-again outcomes,
 * interleaved, newest last. It starts empty with each run, so a resume (or a restart) is judged on
 * what is sent from then on.
 */
class OutcomeWindow {
  private readonly events: boolean[] = [];
  constructor(private readonly size: number) {}

  add(succeeded: number, dead: number): void {
    const n = succeeded + dead;
    for (let k = 0; k < n; k++) this.events.push(Math.floor(((k + 1) * dead) / n) > Math.floor((k * dead) / n));
    if (this.events.length > this.size) this.events.splice(0, this.events.length - this.size);
  }

  /** Newest first, as evaluateBreaker wants them. */
  newestFirst(): boolean[] {
    return [...this.events].reverse();
  }
}

/**
 * Run a task (it must be queued or running). One runner per task: the supervisor's advisory lock,
 * and under it the task's runner lease, which outlives a dropped lock session (runner-lease.ts).
 */
export async function runRedriveTask(taskId: string, options: RunnerOptions = {}): Promise<RunEnd> {
  const runner = options.runnerId ?? randomUUID();
  if (!(await takeRunnerLease(taskId, runner))) return 'not runnable';
  try {
    return await runLeased(taskId, runner, options);
  } finally {
    await releaseRunnerLease(taskId, runner).catch((err: unknown) => log.warn({ err, taskId }, 'redrive runner lease not released; it lapses by itself'));
  }
}

async function runLeased(taskId: string, runner: string, options: RunnerOptions): Promise<RunEnd> {
  const o = { ...DEFAULTS, ...options };
  const clock = options.clock ?? Date.now;
  const dates: Clock = { now: () => new Date(clock()) };
  if (!(await markRunning(taskId, dates))) return 'not runnable';
  await recount(taskId);
  const task = await db().redriveTask.findUniqueOrThrow({ where: { id: taskId } });
  const source = await db().source.findUniqueOrThrow({
    // Redrive to another source: the destination's connection and policy (its loop limit) apply.
    where: { id: task.destinationSourceId ?? task.sourceId },
    select: {
      id: true,
      name: true,
      kind: true,
      maxRedrives: true,
      retentionSeconds: true,
      redriveUrl: true,
      redriveSecret: true,
      connection: true,
      connectionSecret: true,
    },
  });
  let destination: RedriveDestination;
  try {
    destination = options.destination ?? (options.destinationFor ?? destinationFor)(source, { httpTimeoutMs: o.httpTimeoutMs });
  } catch (err) {
    // Nothing to send to: the same on every try, so the task fails with why instead of being retried forever.
    const reason = `Cannot redrive: ${err instanceof Error ? err.message : String(err)}. Fix the source, then start a new redrive.`;
    log.warn({ taskId, reason }, 'redrive destination cannot be built; the task fails');
    await failRedrive(taskId, reason, dates);
    return 'failed';
  }
  const since = await segmentStart(taskId, task.startedAt, dates.now());
  const scope = { id: taskId, sourceId: task.sourceId, destinationSourceId: task.destinationSourceId, since: task.createdAt, createdById: task.createdById };
  const plan = ratePlanOf(task);
  let pacer = new Pacer(plan, task.sent, clock());
  const window = task.breakerWindow || BREAKER_DEFAULTS.window;
  // Re-read with the status (observe): a threshold changed on a running task applies from the next check.
  let threshold = task.breakerThreshold || BREAKER_DEFAULTS.threshold;
  const outcomes = new OutcomeWindow(window);
  let canaryPassed = !task.canary;
  let canarySeq: number | null = null;
  let lastChecks = 0;
  let lastScan = 0;
  // Failures in a row of the destination's infrastructure, and when the next claim may go.
  let unavailableInRow = 0;
  let unavailableUntil = 0;
  // Items claimed ahead and not sent yet; batches being delivered; the seqs and payload bytes both
  // hold (kept out of claims: pending until settled); batches waiting to retry failed messages (the
  // pace holds until they are done, as a single runner's would); and the first error thrown.
  const ready: ClaimedItem[] = [];
  const lanes = new Set<Promise<void>>();
  const inFlight = new Set<number>();
  let heldBytes = 0;
  let claiming: Promise<void> | null = null;
  // The last claim found nothing pending outside what is held; null: the task is not running.
  let drained: boolean | null = false;
  const maxInFlight = Math.max(1, Math.min(o.maxInFlight, destination.maxInFlight ?? o.maxInFlight));
  let retrying = 0;
  let launchedAny = false;
  let laneError: { err: unknown } | undefined;
  // An outage sent a one-at-a-time destination's batch back to pending: what was claimed after it is let go, to be claimed again.
  let requeue = false;
  const seen = { acknowledged: task.acknowledged, deadAgain: task.deadAgain, noDeathSeen: task.noDeathSeen, sent: task.sent };

  // The task row, re-read every statusPollMs: a pause or cancel is seen within it, and the moving
  // outcome counters feed the breaker. A stop ends sleeps but lets the batch in flight finish.
  const halted = new AbortController();
  const wake = new AbortController();
  let end = 'stopped' as RunEnd;
  let renewedAt = Date.now();
  // Sends on their way are cut off only when another runner took the task over; a pause or a cancel
  // lets them finish and settle, so that a message that reached the broker is counted as sent (cut
  // off, it would count as unsent, go again on resume, and its consumer would drop the duplicate).
  const cutOff = new AbortController();
  const observe = async () => {
    if (Date.now() - renewedAt >= RUNNER_RENEW_MS) {
      // Lost (it lapsed while this runner was cut off, and another took the task): stop claiming.
      if (!(await renewRunnerLease(taskId, runner))) {
        log.warn({ taskId }, 'redrive runner lease taken over by another runner; this one stops');
        cutOff.abort();
        halted.abort();
        wake.abort();
        return;
      }
      renewedAt = Date.now();
    }
    const [t] = await db().$queryRaw<
      { status: string; sent: number; acknowledged: number; deadAgain: number; noDeathSeen: number; breakerThreshold: number }[]
    >`
      SELECT status::text AS status, sent, acknowledged, dead_again AS "deadAgain", no_death_seen AS "noDeathSeen", breaker_threshold AS "breakerThreshold"
      FROM redrive_tasks WHERE id = ${taskId}::uuid`;
    if (!t) return;
    threshold = t.breakerThreshold || BREAKER_DEFAULTS.threshold;
    const succeeded = Math.max(0, t.acknowledged - seen.acknowledged) + Math.max(0, t.noDeathSeen - seen.noDeathSeen);
    outcomes.add(succeeded, Math.max(0, t.deadAgain - seen.deadAgain));
    Object.assign(seen, { acknowledged: t.acknowledged, deadAgain: t.deadAgain, noDeathSeen: t.noDeathSeen, sent: t.sent });
    if (t.status !== 'running') {
      end = t.status === 'cancelled' ? 'cancelled' : t.status === 'completed' ? 'completed' : 'paused';
      halted.abort();
      wake.abort();
    }
  };
  const poll = setInterval(() => void observe().catch((err: unknown) => log.warn({ err, taskId }, 'redrive status poll failed')), o.statusPollMs);
  const onStop = () => wake.abort();
  options.stop?.addEventListener('abort', onStop, { once: true });
  const stopped = () => halted.signal.aborted || options.stop?.aborted === true || laneError !== undefined;

  // The wait on a canary is not lag: the rest starts at the task's pace from the moment it passed.
  function passCanary(): void {
    canaryPassed = true;
    pacer = new Pacer(plan, pacer.sends, clock());
  }

  async function pause(reason: string): Promise<void> {
    if (await autoPauseRedrive(taskId, reason, dates)) {
      log.warn({ taskId, reason }, 'redrive paused itself');
      end = 'paused';
    }
    halted.abort();
  }

  /** The canary, once sent: passed, dead (pause), or waiting; its own window over → no death seen → passed. */
  async function canary(): Promise<CanaryState> {
    let c = await canaryState(taskId, since, canarySeq);
    if (c.kind === 'waiting' && c.sentAt && c.sentAt.getTime() + task.canaryWindowMs <= clock()) {
      await finalizeOutcomes(scope, new Date(clock()), { windowMs: task.canaryWindowMs, seq: c.seq });
      c = await canaryState(taskId, since, c.seq);
    }
    if (c.kind === 'passed') passCanary();
    return c;
  }

  async function checks(): Promise<boolean> {
    // A fallback for outcomes no consumer reported: a newer death of a sent message (every few seconds).
    if (clock() - lastScan >= DEAD_AGAIN_SCAN_MS) {
      lastScan = clock();
      await detectDeadAgain(scope);
    }
    // Windows that ended: those items are final (dead again if their death came back, else no death seen).
    await finalizeOutcomes(scope, new Date(clock()), { windowMs: task.outcomeWindowMs });
    const verdict = evaluateBreaker(outcomes.newestFirst(), { threshold, window });
    if (verdict.tripped) {
      await pause(verdict.reason!);
      return false;
    }
    if (!canaryPassed) {
      const c = await canary();
      if (c.kind === 'dead') {
        await pause(
          `${CANARY_REASON_PREFIX} message ${c.messageId} came back ${c.state === 'failed' ? 'undelivered' : 'dead again'}, so the cause is not fixed yet. Fix it, then resume (another canary goes first).`,
        );
        return false;
      }
    }
    return true;
  }

  /**
   * Send a claimed batch (skipping loops). Per item, a failure is the message's (retried with
   * backoff, counted by the breaker, failed after maxHttpAttempts) or the infrastructure's (the item
   * stays pending and is claimed again after a backoff; the breaker does not count it); one batch
   * may hold both. Returns the seqs handled: sent, acknowledged or failed for good.
   */
  async function deliverBatch(items: ClaimedItem[]): Promise<number[]> {
    const skipped: Settled[] = [];
    const sendable: ClaimedItem[] = [];
    for (const item of items) {
      if (item.redriveCount >= source.maxRedrives) {
        skipped.push({
          seq: item.seq,
          state: 'skipped',
          sentAt: null,
          error: `RedriveLoop: redriven ${item.redriveCount} times; the source allows ${source.maxRedrives}`,
        });
      } else if (item.status !== 'redriving') {
        skipped.push({ seq: item.seq, state: 'skipped', sentAt: null, error: `No longer held by the task: ${item.status}` });
      } else sendable.push(item);
    }
    await settle(taskId, task.createdById, skipped, dates.now());
    const handled: number[] = [];
    const firstSentAt = dates.now();
    let remaining = sendable;
    for (let attempt = 1; remaining.length > 0; attempt++) {
      const sentAt = attempt === 1 ? firstSentAt : dates.now();
      const outcome: DeliveryResult[] = await destination.deliver(remaining, cutOff.signal);
      const done: Settled[] = [];
      const failed: { item: ClaimedItem; error: string }[] = [];
      const unavailable: { item: ClaimedItem; error: string }[] = [];
      let refused: string | undefined;
      remaining.forEach((item, k) => {
        const r: DeliveryResult = outcome[k] ?? { ok: false, error: 'the destination gave no result for this message', failure: 'infrastructure' };
        if (r.ok) done.push({ seq: item.seq, state: r.acknowledged ? 'acknowledged' : 'sent', sentAt, error: null });
        else if (r.failure === 'gone') done.push({ seq: item.seq, state: 'skipped', sentAt: null, error: `${GONE_PREFIX} ${r.error}` });
        else if (r.failure === 'refused') refused ??= r.error;
        else if ((r.failure ?? destination.failures) === 'infrastructure') unavailable.push({ item, error: r.error });
        else failed.push({ item, error: r.error });
      });
      await settle(taskId, task.createdById, done, dates.now());
      handled.push(...done.map((d) => d.seq));
      if (refused !== undefined) {
        // Retrying cannot help until someone changes something: the task pauses with the fix, its
        // unsent items stay pending, and a resume after the fix goes on from there.
        await pause(`The destination refused the redrive: ${refused}`);
        return handled;
      }
      if (unavailable.length > 0) {
        // The broker (or Triage's own queue) is away: these stay pending and go again, lowest seq first, after the backoff.
        // Batches in flight together fail together: one failure in a row, not one per batch.
        if (clock() >= unavailableUntil) unavailableInRow++;
        unavailableUntil = Math.max(unavailableUntil, clock() + infraBackoffMs(unavailableInRow));
        const error = unavailable[0]!.error;
        // Order is kept only where one batch goes at a time (a FIFO queue): there, what was claimed after goes back.
        if (maxInFlight === 1) requeue = true;
        log.warn({ taskId, error, items: unavailable.length, retryInMs: infraBackoffMs(unavailableInRow) }, 'redrive destination unavailable; retrying');
        await recordUnavailable(
          taskId,
          unavailable.map((u) => u.item.seq),
          `unavailable, retrying: ${error}`,
        );
      } else if (done.length > 0) unavailableInRow = 0;
      if (failed.length === 0) break;
      const error = failed[0]!.error;
      outcomes.add(0, failed.length);
      if (attempt >= o.maxHttpAttempts) {
        await settle(
          taskId,
          task.createdById,
          failed.map((f) => ({ seq: f.item.seq, state: 'failed' as const, sentAt: firstSentAt, error: `${f.error} (after ${attempt} attempts)` })),
          dates.now(),
        );
        handled.push(...failed.map((f) => f.item.seq));
        break;
      }
      if (!(await checks()) || stopped()) break;
      retrying++;
      try {
        await sleep(httpBackoffMs(attempt), wake.signal);
      } finally {
        retrying--;
      }
      if (stopped()) break;
      await recordAttemptFailure(
        taskId,
        failed.map((f) => f.item.seq),
        error,
      );
      remaining = failed.map((f) => f.item);
    }
    return handled.sort((a, b) => a - b);
  }

  function fail(err: unknown): void {
    // Postgres away mid-settle: the run ends with the error once the batches on their way are done.
    laneError ??= { err };
    wake.abort();
  }

  /** Claims up to `n` more items into `ready`, in the background. */
  function claimAhead(n: number): void {
    claiming = claim(taskId, runner, n, o.maxBatchBytes, [...inFlight])
      .then((items) => {
        drained = items === null ? null : items.length === 0;
        for (const item of items ?? []) {
          inFlight.add(item.seq);
          heldBytes += item.payload.byteLength;
          ready.push(item);
        }
      })
      .catch(fail)
      .finally(() => (claiming = null));
  }

  /** Delivers a batch while the loop goes on; what it leaves pending (an outage) is claimed again after it. */
  function launch(items: ClaimedItem[]): void {
    const lane: Promise<void> = deliverBatch(items)
      .then((sent) => {
        if (!canaryPassed && sent.length > 0) canarySeq = sent[0]!;
      })
      .catch(fail)
      .finally(() => {
        for (const item of items) {
          inFlight.delete(item.seq);
          heldBytes -= item.payload.byteLength;
        }
        lanes.delete(lane);
        if (drained === true) drained = false;
      });
    lanes.add(lane);
  }

  /** Until a batch in delivery or a claim is done (or `ms`, or a stop). */
  const settled = (ms: number) => Promise.race([...lanes, ...(claiming ? [claiming] : []), sleep(ms, wake.signal)]);

  try {
    // A claim found the task not running (paused, cancelled): nothing more goes, not even what is claimed ahead.
    while (!stopped() && drained !== null) {
      const now = clock();
      if (now - lastChecks >= o.checkEveryMs) {
        lastChecks = now;
        if (!(await checks())) break;
      }
      // After an outage the lowest seq goes first again (a one-at-a-time destination keeps its
      // order): once nothing is on its way, the items claimed ahead go back to be claimed anew.
      if (requeue) {
        if (claiming || lanes.size > 0) {
          await settled(o.statusPollMs);
          continue;
        }
        requeue = false;
        for (const item of ready.splice(0)) {
          inFlight.delete(item.seq);
          heldBytes -= item.payload.byteLength;
        }
        drained = false;
      }
      if (now < unavailableUntil) {
        await sleep(Math.min(unavailableUntil - now, o.statusPollMs), wake.signal);
        continue;
      }
      // A canary goes alone, a retry holds the pace, and only so many batches are on their way at once.
      if (lanes.size >= maxInFlight || retrying > 0 || (!canaryPassed && lanes.size > 0)) {
        await settled(o.statusPollMs);
        continue;
      }
      // The first claim's time is not lag to catch up on: the pace starts when there is something to send.
      if (!launchedAny && ready.length > 0) {
        launchedAny = true;
        pacer = new Pacer(plan, pacer.sends, now);
      }
      let want = pacer.due(now);
      let least = pacer.leastBatch(now);
      if (!canaryPassed) {
        const c = await canary();
        if (c.kind !== 'passed') {
          want = c.kind === 'send' ? Math.min(want, 1) : 0;
          least = 1;
        }
        if (c.kind === 'waiting' || c.kind === 'dead') {
          await sleep(o.statusPollMs, wake.signal);
          lastChecks = 0; // a dead canary pauses at once
          continue;
        }
      }
      // A quarter second's sends ahead (one claim's bytes at most beyond what is on its way): a claim
      // slower than a burst's time (a busy Postgres, a busy machine) no longer delays the sends.
      const ahead = canaryPassed ? Math.min(o.maxBatch, Math.max(2 * pacer.burstAt(now), Math.ceil(pacer.burstAt(now) * CLAIM_AHEAD_BURSTS))) : 1;
      if (!claiming && drained === false && ready.length < ahead && heldBytes < o.maxBatchBytes) claimAhead(ahead - ready.length);
      if (ready.length === 0) {
        if (claiming || lanes.size > 0) {
          await settled(o.statusPollMs);
          continue;
        }
        if (!drained) {
          await sleep(o.statusPollMs, wake.signal);
          continue;
        }
        await observe();
        // Every item sent: the task completes once each one is final (acknowledged, dead again, or
        // no death seen at its window's end); until then it is running, awaiting outcomes.
        if (seen.sent <= seen.acknowledged + seen.deadAgain + seen.noDeathSeen) {
          if (!(await checks())) break;
          if (await finishRedrive(taskId, dates)) end = 'completed';
          break;
        }
        await sleep(o.statusPollMs, wake.signal);
        drained = false;
        continue;
      }
      if (want === 0 || want < Math.min(least, ready.length)) {
        await sleep(Math.min(Math.max(pacer.nextAt(Math.min(least, ready.length)) - now, 1), o.statusPollMs), wake.signal);
        continue;
      }
      // A batch: what is due, in seq order, within one claim's payload bytes (the first always fits).
      let n = 0;
      for (let bytes = 0; n < Math.min(want, ready.length); n++) {
        bytes += ready[n]!.payload.byteLength;
        if (n > 0 && bytes > o.maxBatchBytes) break;
      }
      const batch = ready.splice(0, n);
      // Counted when they go, not when delivered: batches in flight are paced like sends already made.
      pacer.record(batch.length);
      launch(batch);
    }
  } finally {
    // The sends on their way are settled before the run ends; a claim ahead still running is not
    // waited for: what it holds stays pending, claimed again by the next run.
    await Promise.all(lanes);
    clearInterval(poll);
    options.stop?.removeEventListener('abort', onStop);
    await destination.close?.().catch((err: unknown) => log.warn({ err, taskId }, 'redrive destination did not close cleanly'));
  }
  if (laneError) throw laneError.err;
  // A claim that found the task no longer running ended the loop before the status poll said why
  // (claims ahead run all the time): read it now, so a cancel still releases what was claimed.
  if (end === 'stopped' && drained === null && !options.stop?.aborted) await observe();
  // Cancelled: nothing of this task is in flight any more, so what it claimed and did not send is open again.
  if (end === 'cancelled') await db().$transaction((tx) => releaseUnsent(tx, taskId, { claimed: true }));
  return end;
}
