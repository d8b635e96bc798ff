// The consumer of the demo's past: the real demo handlers, run in a world of the history's making
// (handler version, downstream outages, the time), receive after receive under the source's retry
// policy, as the broker runtime does (lib/runtime/consume.ts): a permanent error parks the message
// at once (Rejected), any other error retries with the core's backoff until the receive count
// parks it (MaxReceives). What it parks is the dead letter the runtime would have written then,
// with the handler's own error, stack and failure history.
import { backoffDelay, classifyError } from '@/lib/broker';
import { manualClock, type Clock } from '@/lib/clock';
import type { FailureEntry, NewDeadLetter } from '@/lib/model/dead-letter';
import type { DeliveryResult, RedriveDestination } from '@/lib/redrive/destinations';
import { addFailure, describeError, type Failure } from '@/lib/runtime/failure-history';
import { demoHandlersIn, type Downstream } from '../handlers';
import type { HandlerVersion } from '../settings';

/** A message as a producer of the past sent it. */
export interface PastMessage {
  messageId: string;
  body: Record<string, unknown>;
  enqueuedAt: Date;
  key?: string;
  idempotencyKey?: string;
  correlationId?: string;
}

export interface PastWorld {
  handlerVersion: HandlerVersion;
  outages: { downstream: Downstream; from: Date; until: Date }[];
}

export interface ConsumerPolicy {
  maxReceives: number;
  backoffBaseMs: number;
}

const MAX_STACK_LINES = 30; // as the runtime keeps them
const JSON_HEADERS = { 'content-type': 'application/json' };

export function pastConsumer(world: PastWorld) {
  const clock = manualClock(new Date(0));
  const handlers = demoHandlersIn({
    handlerVersion: async () => world.handlerVersion,
    outageUntil: async (downstream) => world.outages.find((o) => o.downstream === downstream && o.from <= clock.now() && clock.now() < o.until)?.until ?? null,
    clock,
  });

  /** Deliver `message` from `firstReceiveAt` on; the dead letter it became, or null when it was handled. */
  return async function deliver(source: string, policy: ConsumerPolicy, message: PastMessage, firstReceiveAt: Date): Promise<NewDeadLetter | null> {
    const handler = handlers(source);
    if (!handler) throw new Error(`The demo has no handler for source "${source}"`);
    const body = new TextEncoder().encode(JSON.stringify(message.body));
    let history: FailureEntry[] = [];
    let at = firstReceiveAt;
    for (let receives = 1; ; receives++) {
      clock.set(at);
      try {
        await handler.handle({
          id: message.messageId,
          source,
          body,
          headers: JSON_HEADERS,
          receives,
          redriveCount: 0,
          enqueuedAt: message.enqueuedAt,
          key: message.key,
          idempotencyKey: message.idempotencyKey,
          correlationId: message.correlationId,
        });
        return null;
      } catch (err) {
        const failed = describeError(err);
        const failure: Failure = { errorType: failed.errorType, errorMessage: failed.errorMessage };
        const permanent = classifyError(err) === 'permanent';
        if (permanent || receives >= policy.maxReceives) {
          const reason = permanent ? 'Rejected' : 'MaxReceives';
          history = addFailure(history, reason, failure, at);
          const version = typeof handler.consumerVersion === 'function' ? await handler.consumerVersion() : (handler.consumerVersion ?? null);
          return {
            messageId: message.messageId,
            payload: body,
            contentType: JSON_HEADERS['content-type'],
            headers: JSON_HEADERS,
            reason,
            errorType: failure.errorType,
            errorMessage: failure.errorMessage,
            errorStack: failed.stack?.split('\n').slice(0, MAX_STACK_LINES).join('\n') ?? null,
            receiveCount: receives,
            enqueuedAt: message.enqueuedAt,
            firstFailedAt: firstReceiveAt,
            lastFailedAt: at,
            deadAt: at,
            consumerName: handler.consumerName ?? null,
            consumerVersion: version,
            orderingKey: message.key ?? null,
            idempotencyKey: message.idempotencyKey ?? null,
            correlationId: message.correlationId ?? null,
            failureHistory: history,
          };
        }
        history = addFailure(history, 'Retried', failure, at);
        at = new Date(at.getTime() + backoffDelay(receives, policy.backoffBaseMs));
      }
    }
  };
}

export type PastDelivery = ReturnType<typeof pastConsumer>;

/**
 * A redrive destination in the past: each message goes back to its source's consumer of that time,
 * which handles it (acknowledged) or fails it again (counted against the task, as a failed send).
 */
export function pastDestination(source: string, policy: ConsumerPolicy, deliver: PastDelivery, clock: Clock): RedriveDestination {
  return {
    description: `queue source.${source}`,
    failures: 'message',
    async deliver(batch) {
      const results: DeliveryResult[] = [];
      for (const m of batch) {
        const body = JSON.parse(new TextDecoder().decode(m.payload)) as Record<string, unknown>;
        const message = { messageId: m.messageId, body, enqueuedAt: m.enqueuedAt ?? clock.now(), key: m.orderingKey ?? undefined };
        const dead = await deliver(source, policy, message, clock.now());
        results.push(dead ? { ok: false, error: `${dead.errorType}: ${dead.errorMessage}` } : { ok: true, acknowledged: true });
      }
      return results;
    },
  };
}
