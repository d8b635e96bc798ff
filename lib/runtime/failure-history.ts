// A message's failure history, kept on its job between deliveries and stored on its dead letter.
// Compressed by (reason, error) with a count, as RabbitMQ's x-death is, so a message that fails
// the same way a hundred times carries one entry, not a hundred.
import type { FailureEntry } from '@/lib/model/dead-letter';

/** Why one delivery failed: the handler threw and the message was retried, or it timed out. */
export type DeliveryFailure = 'Retried' | 'Timeout';

export interface Failure {
  errorType: string | null;
  errorMessage: string | null;
}

/** A delivery that ended without a result: the consumer crashed, stalled or lost its lock. */
export const TIMEOUT_FAILURE: Failure = {
  errorType: 'VisibilityTimeout',
  errorMessage: 'not settled within the visibility timeout (consumer crashed, stalled or lost its lock)',
};

// Bounds what Redis carries per message: distinct entries and the length of each message.
export const MAX_HISTORY_ENTRIES = 20;
const MAX_HISTORY_MESSAGE_CHARS = 500;

export function readHistory(progress: unknown): FailureEntry[] {
  if (typeof progress !== 'object' || progress === null) return [];
  const history = (progress as { history?: unknown }).history;
  return Array.isArray(history) ? (history as FailureEntry[]) : [];
}

/** Deliveries the history accounts for. */
export function countedDeliveries(history: readonly FailureEntry[]): number {
  return history.reduce((n, e) => n + e.count, 0);
}

/** The history with `count` more failures of this (reason, error), at `at`. */
export function addFailure(history: readonly FailureEntry[], reason: string, failure: Failure, at: Date, count = 1): FailureEntry[] {
  const errorMessage = failure.errorMessage?.slice(0, MAX_HISTORY_MESSAGE_CHARS) ?? null;
  const stamp = at.toISOString();
  const i = history.findIndex((e) => e.reason === reason && e.errorType === failure.errorType && e.errorMessage === errorMessage);
  if (i >= 0) {
    const e = history[i]!;
    return history.map((x, j) => (j === i ? { ...e, count: e.count + count, lastAt: stamp } : x));
  }
  const next = [...history, { reason, errorType: failure.errorType, errorMessage, count, firstAt: stamp, lastAt: stamp }];
  if (next.length <= MAX_HISTORY_ENTRIES) return next;
  // Past the bound, the two oldest entries merge into one, so counts still add up to the deliveries.
  const [a, b, ...rest] = next;
  return [{ ...b!, count: a!.count + b!.count, firstAt: a!.firstAt }, ...rest];
}

/** The last error the history recorded, for a message parked at receive time. */
export function lastFailure(history: readonly FailureEntry[]): Failure {
  let last: FailureEntry | undefined;
  for (const e of history) if (!last || e.lastAt >= last.lastAt) last = e;
  return last ? { errorType: last.errorType, errorMessage: last.errorMessage } : TIMEOUT_FAILURE;
}

/** First failure time in the history. */
export function firstFailedAt(history: readonly FailureEntry[]): Date | null {
  let first: string | null = null;
  for (const e of history) if (first === null || e.firstAt < first) first = e.firstAt;
  return first ? new Date(first) : null;
}

/** The failure an error describes: its type (name) and message; anything thrown becomes one. */
export function describeError(err: unknown): Failure & { stack: string | null } {
  if (err instanceof Error) {
    const type = err.name && err.name !== 'Error' ? err.name : err.constructor?.name || 'Error';
    return { errorType: type, errorMessage: err.message, stack: err.stack ?? null };
  }
  return { errorType: typeof err, errorMessage: String(err), stack: null };
}
