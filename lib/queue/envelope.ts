// What a message looks like inside a source queue: the BullMQ job's data. The raw bytes travel as
// base64 so any payload (not UTF-8, empty, binary) survives JSON untouched.
import { z } from 'zod';

/** Headers a redriven message carries, so consumers can deduplicate on the original id. */
export const TRIAGE_HEADERS = {
  messageId: 'Triage-Message-Id',
  redriveCount: 'Triage-Redrive-Count',
  deadLetterId: 'Triage-Dead-Letter-Id',
} as const;

export const envelopeSchema = z.object({
  body: z.base64(),
  headers: z.record(z.string(), z.string()),
  messageId: z.string().min(1).max(512),
  enqueuedAt: z.iso.datetime(),
  /** Times this message was redriven; also the generation of its next dead letter. */
  redriveCount: z.number().int().min(0),
  key: z.string().optional(),
  idempotencyKey: z.string().optional(),
  correlationId: z.string().optional(),
  /** Set on a redriven message: the dead letter it came from, for the outcome signal. */
  deadLetterId: z.string().optional(),
});

export type Envelope = z.infer<typeof envelopeSchema>;

/** A message as a handler receives it. */
export interface ReceivedMessage {
  id: string;
  source: string;
  body: Uint8Array;
  /** The original headers, plus the Triage-* headers when the message was redriven. */
  headers: Record<string, string>;
  /** Deliveries so far, this one included. */
  receives: number;
  redriveCount: number;
  enqueuedAt: Date;
  key?: string;
  idempotencyKey?: string;
  correlationId?: string;
}

/**
 * The BullMQ job id of a message: derived from its id, so a second send of the same message while
 * the first is in flight is absorbed. A redriven message gets its own id per redrive (the original
 * is gone from Redis by then, and a redrive sent twice is absorbed the same way). BullMQ forbids ":"
 * and integer ids; percent-encoding keeps the mapping one-to-one.
 */
export function jobIdFor(messageId: string, redriveCount: number): string {
  const base = `m/${encodeURIComponent(messageId)}`;
  return redriveCount > 0 ? `${base}/${redriveCount}` : base;
}

export function encodeBody(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function decodeBody(base64: string): Uint8Array {
  const b = Buffer.from(base64, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export function toReceivedMessage(source: string, envelope: Envelope, receives: number): ReceivedMessage {
  const headers = { ...envelope.headers };
  if (envelope.redriveCount > 0) {
    headers[TRIAGE_HEADERS.messageId] = envelope.messageId;
    headers[TRIAGE_HEADERS.redriveCount] = String(envelope.redriveCount);
    if (envelope.deadLetterId) headers[TRIAGE_HEADERS.deadLetterId] = envelope.deadLetterId;
  }
  return {
    id: envelope.messageId,
    source,
    body: decodeBody(envelope.body),
    headers,
    receives,
    redriveCount: envelope.redriveCount,
    enqueuedAt: new Date(envelope.enqueuedAt),
    key: envelope.key,
    idempotencyKey: envelope.idempotencyKey,
    correlationId: envelope.correlationId,
  };
}
