// Write-then-delete for the broker runtime. A consumer parks a message by failing its job with the
// evidence (BullMQ keeps failed jobs, evidence and bytes together, atomically with the move, and
// only if the consumer still holds the lock). The sweeper then writes the failed jobs of a source
// to Postgres in batches and removes each job from Redis only after its dead letter is committed.
// A crash in between leaves the job in the failed set; the next sweep (this process or any other
// consumer of the source) writes it again, and the unique key (source, message id, generation)
// absorbs the duplicate. Batching keeps consumers off Postgres's commit latency.
import { Job, type Queue } from 'bullmq';
import type { RedisClient } from '@/lib/redis';
import { z } from 'zod';
import { DEAD_LETTER_REASONS, recordDeadLetters, type FailureEntry, type NewDeadLetter, type SourcePolicy } from '@/lib/intake/record-dead-letters';
import { writeBudget, type WriteBudget, type WriteLease } from '@/lib/admission';
import { stallGuard } from '@/lib/db/stall-guard';
import { log } from '@/lib/log';
import { recordRedriveOutcome, type RedriveOutcome } from '@/lib/intake/redrive-outcomes';
import { decodeBody, envelopeSchema } from '@/lib/queue/envelope';
import { QUARANTINE_SET } from './quarantine';

/** What the consumer knew when it parked a message, carried as the failed job's failedReason. */
const parkEvidenceSchema = z.object({
  triage: z.literal('park'),
  reason: z.enum(DEAD_LETTER_REASONS),
  errorType: z.string().nullable(),
  errorMessage: z.string().nullable(),
  errorStack: z.string().nullable(),
  receiveCount: z.number().int(),
  firstFailedAt: z.string(),
  deadAt: z.string(),
  consumerName: z.string().nullable(),
  consumerVersion: z.string().nullable(),
  history: z.array(z.custom<FailureEntry>()),
});
export type ParkEvidence = z.infer<typeof parkEvidenceSchema>;

// Per transaction: at most this many dead letters or this many payload bytes (as base64 in Redis).
const BATCH = 2_000;
const BATCH_BYTES = 32 << 20;
// Past this many jobs or body bytes, parked jobs are left in Redis for the stray sweep (which reads
// them a batch at a time) instead of being held in memory: a burst of 10 MiB messages costs a
// consumer this much, not thousands of bodies.
const MAX_PARKED_IN_MEMORY = 10_000;
const MAX_PARKED_BYTES = 64 << 20;
// Parked jobs cost the consumers nothing while they wait, so the sweeper lets them gather into
// large batches: one Postgres commit per few hundred dead letters instead of one per handful.
const GATHER_MS = 100;
// Failed jobs nobody is sweeping (their consumer crashed after parking them) are looked for this
// often, once they are this old (younger ones are still on their own consumer's list).
const STRAYS_EVERY_MS = 2_000;
const STRAY_AFTER_MS = 2_000;
const STRAY_BATCH = 100;
// Redrive outcomes Postgres refused, kept in Redis until it takes them, this many per look.
const DEFERRED_OUTCOMES_BATCH = 100;
// A sweep of one batch with no answer in POSTGRES_STALL_MS is given up (lib/db/stall-guard.ts): its
// jobs stay in Redis for the stray sweep, and writing them again is absorbed by their keys. One such
// await (postgres.js leaving a query pending after a Postgres restart) held the sweeper's only loop:
// the consumer went on acknowledging while its parked jobs were never written.
const SWEEP_STALLED = 'the jobs stay in Redis for the next sweep';
// How long a stopping sweeper waits for write budget before leaving its parked jobs in Redis.
const STOP_BUDGET_GRACE_MS = 5_000;

/**
 * An id Postgres can store: a NUL or a lone surrogate becomes U+FFFD (Postgres text refuses both,
 * and a job that can never be written would sit in the failed set for good). Replaced, not
 * dropped, so "a\u0000b" and "ab" stay two messages.
 */
export function storableId<T extends string | null | undefined>(id: T): T {
  if (id == null) return id;
  const w = (id.includes('\u0000') ? id.replaceAll('\u0000', '\uFFFD') : id) as unknown as { isWellFormed(): boolean; toWellFormed(): string };
  return (w.isWellFormed() ? w : w.toWellFormed()) as unknown as T;
}

// Postgres refused the row itself (data exception, integrity, a value too large): writing it again
// cannot succeed, so the job is moved out of the way of the others.
const UNWRITABLE_SQLSTATE = /^(22|23|54)/;

/** What a job's body costs in memory: its base64 text, as BullMQ hands the job over. */
function bodyBytes(job: Job): number {
  const body = (job.data as { body?: unknown } | undefined)?.body;
  return typeof body === 'string' ? body.length : 0;
}

export interface SweeperLimits {
  /** Body bytes of parked jobs held in memory at most (one job is always held). */
  maxParkedBytes?: number;
  /** Body bytes per written batch at most (a batch holds at least one job). */
  batchBytes?: number;
  /** The write budget shared with ingest, connectors and the indexer (default: the process's). */
  budget?: WriteBudget;
}

function parseEvidence(failedReason: string | undefined): ParkEvidence | null {
  if (!failedReason?.startsWith('{')) return null;
  try {
    const parsed = parkEvidenceSchema.safeParse(JSON.parse(failedReason));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The dead letter of a failed job: its exact bytes and headers, and the consumer's evidence. */
export function deadLetterOf(job: Job): { deadLetter: NewDeadLetter; redrivenFrom: string | null } {
  const at = new Date(job.finishedOn ?? Date.now());
  // A job BullMQ failed by itself (not parked by this runtime) still becomes a dead letter.
  const evidence = parseEvidence(job.failedReason) ?? {
    reason: 'Rejected' as const,
    errorType: 'QueueFailure',
    errorMessage: job.failedReason ?? 'failed in the queue',
    errorStack: null,
    receiveCount: job.attemptsStarted,
    firstFailedAt: at.toISOString(),
    deadAt: at.toISOString(),
    consumerName: null,
    consumerVersion: null,
    history: [],
  };
  const failure = {
    reason: evidence.reason,
    errorType: evidence.errorType,
    errorMessage: evidence.errorMessage,
    errorStack: evidence.errorStack,
    receiveCount: evidence.receiveCount,
    firstFailedAt: new Date(evidence.firstFailedAt),
    lastFailedAt: new Date(evidence.deadAt),
    deadAt: new Date(evidence.deadAt),
    consumerName: evidence.consumerName,
    consumerVersion: evidence.consumerVersion,
    failureHistory: evidence.history.length ? evidence.history : undefined,
  };
  const envelope = envelopeSchema.safeParse(job.data);
  if (!envelope.success) {
    // Not a message this runtime sent: keep what the job held, as JSON, rather than lose it.
    return {
      deadLetter: {
        ...failure,
        messageId: storableId(job.id ?? `job-${job.timestamp}`),
        payload: new TextEncoder().encode(JSON.stringify(job.data ?? null)),
        contentType: 'application/json',
        enqueuedAt: new Date(job.timestamp),
      },
      redrivenFrom: null,
    };
  }
  const e = envelope.data;
  return {
    deadLetter: {
      ...failure,
      messageId: storableId(e.messageId),
      // A redriven message that dies again is a new row: its generation is its redrive count.
      generation: e.redriveCount,
      payload: decodeBody(e.body),
      contentType: Object.entries(e.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? null,
      headers: e.headers,
      enqueuedAt: new Date(e.enqueuedAt),
      redriveCount: e.redriveCount,
      orderingKey: storableId(e.key ?? null),
      idempotencyKey: storableId(e.idempotencyKey ?? null),
      correlationId: storableId(e.correlationId ?? null),
    },
    redrivenFrom: e.deadLetterId ?? null,
  };
}

export class DeadLetterSweeper {
  /** Jobs this consumer parked (BullMQ's 'failed' event hands them over, data and evidence in memory). */
  private parked: Job[] = [];
  private straysDue = false;
  private loop: Promise<void> | null = null;
  /** Removals of committed jobs run behind the next batch's write; stop() waits for them. */
  private removing: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private readonly maxParkedBytes: number;
  private readonly batchBytes: number;
  private readonly budget: WriteBudget;
  /** Aborted STOP_BUDGET_GRACE_MS into stop(): a sweep still waiting for write budget gives up, its jobs left in Redis. */
  private readonly stopping = new AbortController();
  /** Body bytes held now, the most held at once, and the largest batch written (bytes). */
  readonly stats = { heldBytes: 0, maxHeldBytes: 0, largestBatchBytes: 0 };

  constructor(
    private readonly queue: Queue,
    private readonly redis: RedisClient,
    private readonly source: () => SourcePolicy,
    limits: SweeperLimits = {},
  ) {
    this.maxParkedBytes = limits.maxParkedBytes ?? MAX_PARKED_BYTES;
    this.batchBytes = limits.batchBytes ?? BATCH_BYTES;
    this.budget = limits.budget ?? writeBudget();
  }

  start(): void {
    const strays = () => {
      this.straysDue = true;
      this.wake(0);
    };
    this.timer = setInterval(strays, STRAYS_EVERY_MS);
    this.timer.unref();
    strays();
  }

  /** A job this consumer just parked: it is written with the others parked around now. */
  add(job: Job): void {
    const size = bodyBytes(job);
    const full = this.parked.length >= MAX_PARKED_IN_MEMORY || (this.parked.length > 0 && this.stats.heldBytes + size > this.maxParkedBytes);
    if (!full) {
      this.parked.push(job);
      this.stats.heldBytes += size;
      this.stats.maxHeldBytes = Math.max(this.stats.maxHeldBytes, this.stats.heldBytes);
    }
    this.wake(GATHER_MS);
  }

  /**
   * Record a redriven message's outcome; when Postgres refuses it, keep it in Redis for the next
   * sweep instead of failing the caller. Whatever Triage's side does, a consumer's success is never
   * turned into a retry of the handler (and in the end a MaxReceives dead letter). Should Redis
   * refuse it too, the task's outcome window settles the item ("no death seen").
   */
  async reportOutcome(deadLetterId: string, outcome: RedriveOutcome, at: Date = new Date()): Promise<void> {
    try {
      await recordRedriveOutcome({ deadLetterId, outcome, at });
    } catch (err) {
      log.warn(
        { queue: this.queue.name, deadLetterId, outcome, err: err instanceof Error ? err.message : String(err) },
        'redrive outcome not recorded; kept for the next sweep',
      );
      try {
        await this.redis.hset(this.deferredOutcomesKey(), deadLetterId, JSON.stringify({ outcome, at: at.toISOString() }));
      } catch (redisErr) {
        log.error(
          { queue: this.queue.name, deadLetterId, outcome, err: redisErr instanceof Error ? redisErr.message : String(redisErr) },
          'redrive outcome lost; the task outcome window will settle its item',
        );
      }
    }
  }

  private deferredOutcomesKey(): string {
    return this.queue.toKey('triage-deferred-outcomes');
  }

  /** Outcomes kept by reportOutcome, recorded now that Postgres may take them (a few at a time). */
  private async recordDeferredOutcomes(): Promise<void> {
    const key = this.deferredOutcomesKey();
    const [, flat] = await this.redis.hscan(key, '0', 'COUNT', DEFERRED_OUTCOMES_BATCH);
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const { outcome, at } = JSON.parse(flat[i + 1]!) as { outcome: RedriveOutcome; at: string };
      await recordRedriveOutcome({ deadLetterId: flat[i]!, outcome, at: new Date(at) });
      await this.redis.hdel(key, flat[i]!);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // The parked jobs are still written if the budget frees within a grace; past it they stay in Redis.
    const grace = setTimeout(() => this.stopping.abort(), STOP_BUDGET_GRACE_MS);
    grace.unref();
    while (this.loop) await this.loop;
    clearTimeout(grace);
    await this.removing;
  }

  /** One sweeping loop per consumer; work that arrives while it runs is picked up by it. */
  private wake(afterMs: number): void {
    if (this.loop) return;
    this.loop = this.drain(afterMs).finally(() => {
      this.loop = null;
      if (this.parked.length > 0) this.wake(0);
    });
  }

  private async drain(afterMs: number): Promise<void> {
    if (afterMs > 0) await new Promise((r) => setTimeout(r, afterMs));
    try {
      while (this.parked.length > 0 || this.straysDue) {
        if (this.parked.length > 0) await this.admitted((lease) => stallGuard(this.sweep(this.nextBatch(), lease), SWEEP_STALLED));
        else {
          this.straysDue = false;
          await stallGuard(this.recordDeferredOutcomes(), SWEEP_STALLED);
          await this.sweepStrays();
        }
      }
    } catch (err) {
      // Postgres or Redis away: the jobs stay parked in Redis, where the stray sweep finds them again.
      log.warn({ queue: this.queue.name, err: err instanceof Error ? err.message : String(err) }, 'dead-letter sweep failed; retrying');
    }
  }

  /**
   * A sweep under a share of the write budget: while it is spent the sweeper waits and the jobs stay
   * in Redis (slower, never lost). Stopped while waiting: the jobs held in memory are let go (they are
   * still in the failed set, where the next stray sweep finds them).
   */
  private async admitted(sweep: (lease: WriteLease) => Promise<number>): Promise<number> {
    const done = await this.budget.run('sweeper', sweep, { signal: this.stopping.signal });
    if (done) return done.value;
    this.stats.heldBytes = 0;
    this.parked = [];
    throw new Error('stopping while waiting for write budget; the jobs stay in Redis');
  }

  private nextBatch(): Job[] {
    let bytes = 0;
    let n = 0;
    while (n < this.parked.length && n < BATCH) {
      const size = bodyBytes(this.parked[n]!);
      if (n > 0 && bytes + size > this.batchBytes) break;
      bytes += size;
      n++;
    }
    this.stats.heldBytes -= bytes;
    this.noteBatch(bytes);
    return this.parked.splice(0, n);
  }

  private noteBatch(bytes: number): void {
    this.stats.largestBatchBytes = Math.max(this.stats.largestBatchBytes, bytes);
  }

  /**
   * Failed jobs nobody swept, oldest first, read one job at a time up to a batch's byte budget (not
   * a hundred full bodies at once).
   */
  private async sweepStrays(): Promise<void> {
    for (;;) {
      const before = Date.now() - STRAY_AFTER_MS;
      const ids = await this.queue.getRanges(['failed'], 0, STRAY_BATCH - 1, true);
      const jobs: Job[] = [];
      let bytes = 0;
      let cut = false;
      for (const id of ids) {
        const job = await Job.fromId(this.queue, id);
        if (!job?.id || (job.finishedOn ?? 0) >= before) continue;
        const size = bodyBytes(job);
        if (jobs.length > 0 && bytes + size > this.batchBytes) {
          cut = true;
          break;
        }
        jobs.push(job);
        bytes += size;
      }
      if (jobs.length === 0) return;
      this.noteBatch(bytes);
      const written = await this.admitted((lease) => stallGuard(this.sweep(jobs, lease), SWEEP_STALLED));
      if (written < jobs.length || (!cut && ids.length < STRAY_BATCH)) return;
      await this.removing;
    }
  }

  /** Write these parked jobs' dead letters, then remove the jobs. Returns how many it committed. */
  private async sweep(jobs: Job[], lease: WriteLease): Promise<number> {
    const parked = jobs.map(deadLetterOf);
    const written = await this.write(
      parked.map((p) => p.deadLetter),
      lease,
    );
    const done: Job[] = [];
    const unwritable: Job[] = [];
    for (let i = 0; i < jobs.length; i++) {
      if (written[i] === 'unwritable') unwritable.push(jobs[i]!);
      if (written[i] !== true) continue;
      const from = parked[i]!.redrivenFrom;
      // The redrive's outcome signal, once the new dead letter is committed (the engine finds it as the newer generation).
      if (from) await this.reportOutcome(from, 'dead_again', parked[i]!.deadLetter.deadAt);
      done.push(jobs[i]!);
    }
    // Committed: now, and only now, the jobs leave Redis. A removal that fails leaves the job for
    // the stray sweep, which writes it again (absorbed) and removes it.
    const removals = this.remove(done).catch((err: unknown) =>
      log.warn({ queue: this.queue.name, err: err instanceof Error ? err.message : String(err) }, 'removing swept jobs failed; they will be swept again'),
    );
    this.removing = Promise.all([this.removing, removals]);
    if (unwritable.length) await this.quarantine(unwritable);
    return done.length + unwritable.length;
  }

  /**
   * Jobs Postgres refuses row by row leave the failed set for a quarantine set of the queue (kept,
   * bytes and evidence, for an operator), so the stray sweep, which reads the oldest failed jobs
   * first, is never held up behind them. Logged at error level; the alarm evaluation raises a
   * `quarantine` alarm on the source while the set holds any (lib/runtime/quarantine.ts).
   */
  private async quarantine(jobs: Job[]): Promise<void> {
    const key = this.queue.toKey(QUARANTINE_SET);
    const now = Date.now();
    const ids = jobs.map((j) => j.id!);
    await this.redis
      .multi()
      .zrem(this.queue.keys.failed!, ...ids)
      .zadd(key, ...ids.flatMap((id) => [now, id]))
      .exec();
    log.error(
      { queue: this.queue.name, quarantine: key, jobs: ids.length, jobIds: ids.slice(0, 10) },
      'failed jobs Postgres refuses to store were quarantined: they are not dead letters; inspect them in Redis (ZRANGE of the quarantine key, then the job hashes)',
    );
  }

  /**
   * Remove swept jobs in one MULTI: out of the failed set, and their hashes and logs deleted. BullMQ's
   * own removal is a script call per job, which at a few thousand dead letters a second costs Redis
   * as much as failing them did; these jobs are plain failed jobs (no flows, no locks, no scheduler).
   */
  private async remove(jobs: Job[]): Promise<void> {
    if (jobs.length === 0) return;
    const ids = jobs.map((j) => j.id!);
    await this.redis
      .multi()
      .zrem(this.queue.keys.failed!, ...ids)
      .del(...ids.flatMap((id) => [this.queue.toKey(id), `${this.queue.toKey(id)}:logs`]))
      .exec();
  }

  /**
   * All in one transaction; if Postgres refuses the batch, row by row, so one bad row holds back only
   * itself. Each row waits for the share while the lease is lost (a stall longer than a lease let
   * another process take it); stopped meanwhile, the batch stays in Redis, the rows written already
   * absorbed when it is swept again.
   */
  private async write(deadLetters: NewDeadLetter[], lease: WriteLease): Promise<(boolean | 'unwritable')[]> {
    try {
      await recordDeadLetters(this.source(), deadLetters);
      return deadLetters.map(() => true);
    } catch (err) {
      // A deadlock or serialization failure says nothing about the rows: the whole batch goes again later.
      const code = (err as { code?: unknown }).code;
      if (deadLetters.length === 1 || code === '40P01' || code === '40001') throw err;
      const ok: (boolean | 'unwritable')[] = [];
      for (const d of deadLetters) {
        if (!(await lease.ensure({ signal: this.stopping.signal }))) throw new Error('stopping while waiting for write budget; the jobs stay in Redis');
        try {
          await recordDeadLetters(this.source(), [d]);
          ok.push(true);
        } catch (rowErr) {
          const rowCode = String((rowErr as { code?: unknown }).code ?? '');
          log.error(
            { queue: this.queue.name, messageId: d.messageId, code: rowCode, err: rowErr instanceof Error ? rowErr.message : String(rowErr) },
            'a dead letter could not be written; it stays parked in Redis',
          );
          ok.push(UNWRITABLE_SQLSTATE.test(rowCode) ? 'unwritable' : false);
        }
      }
      return ok;
    }
  }
}
