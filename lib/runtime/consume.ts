// The broker core's semantics on BullMQ, durable (docs/design.md "The broker runtime"; seed 000):
// - a delivery is a BullMQ receive; BullMQ's attemptsStarted is the receive count, so a delivery
//   that ended without a result (crash, stall, lost lock) counts as a failed receive;
// - the receive limit is checked at receive time, as SQS does, and after a failure that used the
//   last receive; permanent errors are dead-lettered at once (Rejected);
// - retries wait the core's backoff with full jitter (a BullMQ custom backoff strategy);
// - dead-lettering is write-then-delete: the job is failed with its evidence and stays in Redis
//   until the sweeper (dead-letter-sweeper.ts) has committed its dead letter in Postgres.
// Every settlement goes through BullMQ's lock check (completing, failing and retrying a job need
// the delivery's lock token), so a consumer whose event loop blocked past the visibility timeout
// cannot apply its late result: the message was already handed to another delivery.
import { UnrecoverableError, type Job } from 'bullmq';
import { backoffDelay, classifyError, fullJitter } from '@/lib/broker';
import { MAX_ERROR_MESSAGE_CHARS, type DeadLetterReason, type FailureEntry } from '@/lib/model/dead-letter';
import { env } from '@/lib/env';
import { producerQueue, QUEUES } from '@/lib/queue';
import { CATALOG } from '@/lib/queue/catalog';
import { createQueueWorker } from '@/lib/queue/worker';
import { redisConnection, type RedisClient } from '@/lib/redis';
import { DeadLetterSweeper, type ParkEvidence } from './dead-letter-sweeper';
import { toReceivedMessage, type ReceivedMessage } from '@/lib/queue/envelope';
import { addFailure, countedDeliveries, describeError, firstFailedAt, lastFailure, readHistory, TIMEOUT_FAILURE, type Failure } from './failure-history';
import { cachedPolicy, sourcePolicy, type RuntimePolicy } from './policy';

/** A handler acknowledges by returning and fails by throwing; classifyError decides what a failure means. */
export type MessageHandler = (message: ReceivedMessage) => Promise<void>;

export interface ConsumeOptions {
  /** Recorded on dead letters: which consumer failed the message. */
  consumerName?: string;
  /** Recorded on dead letters; a function is asked when the dead letter is written (a deploy can change it). */
  consumerVersion?: string | (() => string | Promise<string>);
  /** Messages handled at once; default CONSUMER_CONCURRENCY. */
  concurrency?: number;
}

export interface Consumer {
  readonly source: string;
  readonly visibilityTimeoutMs: number;
  /** Stop taking messages, let the ones in hand finish, disconnect. */
  close(): Promise<void>;
}

/** Thrown when the lock is gone: another delivery owns the message now, this one's result is void. */
class LockLostError extends Error {
  constructor(jobId: string | undefined) {
    super(`lost the lock on job ${jobId}: the message was redelivered, this result is discarded`);
    this.name = 'LockLostError';
  }
}

/**
 * A failed delivery handed back to BullMQ for a retry. Its own name, so nothing a handler throws
 * (BullMQ's UnrecoverableError, DelayedError…) can steer BullMQ around the runtime.
 */
class DeliveryFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryFailed';
  }
}

// BullMQ fails a job that stalled more than maxStalledCount times without running the processor,
// which would skip the dead letter. The runtime counts stalls as receives itself instead.
const NEVER_FAIL_ON_STALL = 1_000_000_000;
const MAX_STACK_LINES = 30;

const truncateStack = (stack: string | null) => (stack ? stack.split('\n').slice(0, MAX_STACK_LINES).join('\n') : null);

/** Consume a built-in source's queue with `handler`, under the source's policy from Postgres. */
export async function consume(sourceName: string, handler: MessageHandler, options: ConsumeOptions = {}): Promise<Consumer> {
  // Read fresh: a consumer must not start on a cached policy of a source that was since replaced.
  const initial = await sourcePolicy(sourceName, { fresh: true });
  const lockDuration = initial.visibilityTimeoutMs;
  const connection: RedisClient = redisConnection('worker');
  const sweeper = new DeadLetterSweeper(producerQueue(QUEUES.source(sourceName)), connection, () => {
    const p = cachedPolicy(sourceName) ?? initial;
    return { id: p.id, retentionSeconds: p.retentionSeconds };
  });
  const version = async () => (typeof options.consumerVersion === 'function' ? await options.consumerVersion() : (options.consumerVersion ?? null));

  async function holdLock(job: Job, token: string | undefined): Promise<void> {
    if (!token) return;
    if (Number(await job.extendLock(token, lockDuration)) !== 1) throw new LockLostError(job.id);
  }

  /**
   * Park a message: fail its job with the evidence as BullMQ's failedReason. BullMQ moves it to the
   * failed set only if this delivery still holds the lock, so a late verdict is never applied; the
   * sweeper writes the dead letter and only then removes the job.
   */
  async function park(p: { reason: DeadLetterReason; failure: Failure; stack: string | null; receives: number; history: FailureEntry[] }): Promise<never> {
    const now = new Date().toISOString();
    const evidence: ParkEvidence = {
      triage: 'park',
      reason: p.reason,
      errorType: p.failure.errorType,
      errorMessage: p.failure.errorMessage?.slice(0, MAX_ERROR_MESSAGE_CHARS) ?? null,
      errorStack: truncateStack(p.stack),
      receiveCount: p.receives,
      firstFailedAt: firstFailedAt(p.history)?.toISOString() ?? now,
      deadAt: now,
      consumerName: options.consumerName ?? null,
      consumerVersion: await version(),
      history: p.history,
    };
    const parked = new UnrecoverableError(JSON.stringify(evidence));
    parked.stack = undefined; // the evidence holds the handler's stack; this one would only be formatted and stored in vain
    throw parked;
  }

  async function processMessage(job: Job, token?: string): Promise<void> {
    const policy: RuntimePolicy = await sourcePolicy(sourceName);
    const receives = job.attemptsStarted;
    const now = new Date();
    let history = readHistory(job.progress);
    // Earlier deliveries the history does not account for ended without a result: timeouts.
    const unaccounted = receives - 1 - countedDeliveries(history);
    if (unaccounted > 0) history = addFailure(history, 'Timeout', TIMEOUT_FAILURE, now, unaccounted);

    // Not processJob: a message that is not an envelope becomes a dead letter (Rejected), not a failed job.
    const parsed = CATALOG.message.schema.safeParse(job.data);
    if (!parsed.success) {
      const failure = { errorType: 'InvalidEnvelope', errorMessage: `not a message of the broker runtime: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
      return park({ reason: 'Rejected', failure, stack: null, receives, history: addFailure(history, 'Rejected', failure, now) });
    }
    const envelope = parsed.data;

    if (envelope.redriveCount > policy.maxRedrives) {
      const failure = { errorType: 'RedriveLoop', errorMessage: `redriven ${envelope.redriveCount} times; the source allows ${policy.maxRedrives}` };
      return park({ reason: 'RedriveLoop', failure, stack: null, receives: receives - 1, history });
    }
    if (receives > policy.maxReceives) {
      return park({ reason: 'MaxReceives', failure: lastFailure(history), stack: null, receives: receives - 1, history });
    }

    try {
      await handler(toReceivedMessage(sourceName, envelope, receives));
    } catch (err) {
      const failed = describeError(err);
      const failure = { errorType: failed.errorType, errorMessage: failed.errorMessage };
      // A handler that throws BullMQ's UnrecoverableError means "do not retry" too.
      const permanent = classifyError(err) === 'permanent' || failed.errorType === 'UnrecoverableError';
      const reason: DeadLetterReason | null = permanent ? 'Rejected' : receives >= policy.maxReceives ? 'MaxReceives' : null;
      if (reason) {
        return park({ reason, failure, stack: failed.stack, receives, history: addFailure(history, reason, failure, now) });
      }
      await holdLock(job, token);
      await job.updateProgress({ history: addFailure(history, 'Retried', failure, now) });
      throw new DeliveryFailed(failed.errorMessage ?? 'failed');
    }

    if (envelope.deadLetterId) {
      await holdLock(job, token);
      // Never throws: a success Triage fails to record is kept and recorded later, not retried.
      await sweeper.reportOutcome(envelope.deadLetterId, 'acknowledged');
    }
  }

  const worker = createQueueWorker(QUEUES.source(sourceName), processMessage, {
    connection,
    errorMessage: 'consumer error',
    logContext: { source: sourceName },
    concurrency: options.concurrency ?? env().CONSUMER_CONCURRENCY,
    lockDuration,
    // A crashed consumer's messages come back after the visibility timeout plus at most this.
    stalledInterval: Math.min(Math.max(Math.floor(lockDuration / 2), 500), 30_000),
    maxStalledCount: NEVER_FAIL_ON_STALL,
    // After a Redis restart, try again soon rather than after BullMQ's default 15 s.
    runRetryDelay: 1_000,
    settings: {
      backoffStrategy: (_attemptsMade, _type, _err, job) => {
        const p = cachedPolicy(sourceName) ?? initial;
        const receives = (job as Job | undefined)?.attemptsStarted ?? 1;
        return fullJitter(Math.min(backoffDelay(receives, p.backoffBaseMs), p.backoffCapMs), Math.random);
      },
    },
  });
  // 'failed' also follows a failure that will be retried; only a finished job is parked.
  worker.on('failed', (job) => {
    if (job?.finishedOn) sweeper.add(job);
  });
  sweeper.start();

  return {
    source: sourceName,
    visibilityTimeoutMs: lockDuration,
    async close() {
      await worker.close();
      await sweeper.stop();
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}
