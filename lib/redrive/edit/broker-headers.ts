// Headers an edit or a transform may not change: the ones a broker or Triage owns. They carry where
// a message came from and what happened to it (RabbitMQ's x-death and x-first-/x-last-death-*,
// Spring's x-original-exchange and routing key, JetStream's directives, BullMQ's job facts, the
// $-keys where Triage keeps a connector's own record, Triage's redrive headers). A redrive reads
// its target from the original's stored headers (OutgoingRedrive.origin), never from a copy's; this
// keeps a copy from carrying forged broker facts to the consumer, and says so (422) instead of
// quietly dropping the change.
import { unprocessable } from '@/lib/errors';
import { sameJson } from './same-json';

const OWNED = [
  /^\$/, // Triage's record of a connector's own facts: $amqp, $nats, $sqs
  /^x-death$/i,
  /^x-(first|last)-death-/i,
  /^x-delivery-count$/i,
  /^x-received-from$/i,
  /^x-original-(exchange|routingkey)$/i,
  /^x-triage-/i,
  /^triage-/i,
  /^nats-/i,
  /^bullmq\./i,
  /^sidekiq\./i,
];

/** Whether a header is the broker's or Triage's (not the application's). */
export function ownedHeader(name: string): boolean {
  return OWNED.some((re) => re.test(name));
}

/**
 * Refuse (422, naming the header) a copy whose broker-owned headers differ from the original's:
 * added, removed or changed. `field` is where the caller's input named the headers.
 */
export function assertOwnedHeadersKept(before: Record<string, unknown>, after: Record<string, unknown>, field = 'headers'): void {
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!ownedHeader(name) || sameJson(before[name], after[name])) continue;
    throw unprocessable(`${field}["${name}"] is the broker's or Triage's own header and cannot be changed: a redrive goes where the original came from`, {
      issues: [{ path: `${field}.${name}`, message: 'a broker-owned header cannot be changed' }],
    });
  }
}
