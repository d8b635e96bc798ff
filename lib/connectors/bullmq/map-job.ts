// A failed BullMQ job, as its hash in Redis holds it, becomes a dead letter. The payload is the job
// data's stored JSON text, byte for byte (BullMQ writes JSON.stringify(data)); the error text is the
// job's own: failedReason and the stack of each attempt.
import { Job, type JobsOptions } from 'bullmq';
import type { FailureEntry, NewDeadLetter } from '@/lib/model/dead-letter';

/** A failed job read from Redis: its id, its score in the failed set, its hash fields as bytes. */
export interface FailedJob {
  id: string;
  score: number;
  hash: Record<string, Buffer>;
}

// A copy Triage adds when the job is gone keeps the job's id, so its next failure is the same
// message's next generation. BullMQ refuses integer custom ids (its own ids are integers): a copy of
// job 17 is job "triage-copy-17", and is still message 17.
const COPY_PREFIX = 'triage-copy-';
const INTEGER = /^\d+$/;

/** The message id of a job: its id, or for Triage's copy of a job, the original's. */
export function messageIdOfJob(jobId: string): string {
  const rest = jobId.startsWith(COPY_PREFIX) ? jobId.slice(COPY_PREFIX.length) : null;
  return rest !== null && INTEGER.test(rest) ? rest : jobId;
}

/** The job id a copy of this message gets. */
export function copyJobIdOf(messageId: string): string {
  return INTEGER.test(messageId) ? COPY_PREFIX + messageId : messageId;
}

/** The moment a job failed: finishedOn, else its failed-set score (the same number in BullMQ). */
export function failedAtOf(job: FailedJob): number {
  const f = Number(job.hash.finishedOn?.toString('utf8'));
  return Number.isFinite(f) && f > 0 ? f : job.score;
}

const str = (b: Buffer | undefined) => (b === undefined ? null : b.toString('utf8'));
const int = (b: Buffer | undefined) => {
  const n = b === undefined ? NaN : parseInt(b.toString('utf8'), 10);
  return Number.isFinite(n) ? n : null;
};

/** "TypeError: boom" → "TypeError": an error's name as Error.prototype.toString writes it. */
export function errorNameOf(line: string | null | undefined): string | null {
  const m = line ? /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*):\s/.exec(line) : null;
  return m ? m[1]! : null;
}

function isJson(bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function stackTraces(raw: string | null): string[] {
  if (!raw) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** The first line of a stack without its "Name: " prefix: that attempt's message. */
const messageOfStack = (stack: string) => {
  const first = stack.split('\n', 1)[0] ?? '';
  const name = errorNameOf(first);
  return name ? first.slice(name.length + 1).trim() : first;
};

/**
 * The dead letter of one failure. Generation and redrive count are Triage's (lib/connectors/bullmq/
 * import.ts sets them from the rows it already holds of this job).
 */
export function deadLetterOfJob(job: FailedJob, queue: string): NewDeadLetter {
  const h = job.hash;
  const data = h.data ?? Buffer.from('{}');
  const opts: JobsOptions = Job.optsFromJSON(str(h.opts) ?? undefined);
  const failedReason = str(h.failedReason);
  const stacks = stackTraces(str(h.stacktrace));
  const lastStack = stacks.at(-1) ?? null;
  const errorType = errorNameOf(lastStack) ?? errorNameOf(failedReason);
  const attemptsMade = int(h.attemptsMade) ?? int(h.atm) ?? 0;
  const attempts = opts.attempts ?? 1;
  const failedAt = new Date(failedAtOf(job));
  const timestamp = int(h.timestamp);
  const processedOn = int(h.processedOn);
  // Retries exhausted is BullMQ's "max receives"; fewer attempts means the job was failed outright
  // (an UnrecoverableError, or moved to failed by hand).
  const reason = attemptsMade >= attempts ? 'MaxReceives' : 'Rejected';
  // Earlier attempts' stacks (BullMQ keeps opts.stackTraceLimit of them), grouped by cause; their
  // times are not kept by BullMQ.
  const earlier = new Map<string, FailureEntry>();
  for (const s of stacks.slice(0, -1)) {
    const type = errorNameOf(s);
    const message = messageOfStack(s);
    const key = `${type}\u0001${message}`;
    const e = earlier.get(key);
    if (e) e.count++;
    else earlier.set(key, { reason: 'attempt', errorType: type, errorMessage: message, count: 1, firstAt: '', lastAt: '' });
  }
  const at = failedAt.toISOString();
  const name = str(h.name);
  return {
    messageId: messageIdOfJob(job.id),
    payload: data,
    contentType: isJson(data) ? 'application/json' : 'application/octet-stream',
    headers: {
      'bullmq.queue': queue,
      'bullmq.jobId': job.id,
      'bullmq.name': name,
      'bullmq.attemptsMade': attemptsMade,
      'bullmq.attempts': attempts,
      ...(opts.backoff !== undefined ? { 'bullmq.backoff': opts.backoff } : {}),
      'bullmq.opts': opts,
      'bullmq.timestamp': timestamp,
      'bullmq.processedOn': processedOn,
      'bullmq.finishedOn': failedAtOf(job),
      ...(h.pb ? { 'bullmq.processedBy': str(h.pb) } : {}),
    },
    reason,
    errorType,
    errorMessage: failedReason,
    errorStack: lastStack,
    receiveCount: attemptsMade,
    enqueuedAt: timestamp === null ? null : new Date(timestamp),
    lastFailedAt: failedAt,
    deadAt: failedAt,
    consumerName: str(h.pb),
    failureHistory: [...earlier.values(), { reason, errorType, errorMessage: failedReason, count: 1, firstAt: at, lastAt: at }],
  };
}
