// An SQS message ⇄ a Triage dead letter. Pure: no I/O, so the mapping is unit-tested on its own.
//
// Import keeps everything the message carried: the body (SQS bodies are text; stored as its UTF-8
// bytes); each message attribute under its own name in the headers (a String as the string, any
// other type as { "$type": DataType, "value" } or, for Binary, { "$type", "$bytes": base64 }, so it
// sends back with its type); the system attributes (ApproximateReceiveCount, SentTimestamp…) and the
// DLQ's message id under the reserved key "$sqs". Redrive sends the same body and attributes plus
// Triage's original id and redrive count (SQS gives every sent message a new id).
import type { MessageAttributeValue, Message, SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import type { FailureEntry, NewDeadLetter } from '@/lib/model/dead-letter';
import type { OutgoingRedrive } from '@/lib/model/redrive-destination';
import { errorTextOf, type ErrorTextMapping } from '../error-text';
import { ENVELOPE_KEY, unwrapEnvelope, type SqsEnvelopeSetting } from './envelope';

/** Message attributes Triage writes on a redriven message. */
export const TRIAGE_ATTRIBUTES = {
  /** The message id of the first death (the SQS MessageId then): the same dead letter across generations. */
  originalId: 'triage-original-id',
  /** Times Triage redrove this message: the generation of its next dead letter. */
  redriveCount: 'triage-redrive-count',
} as const;

/** SQS allows at most this many message attributes on a message. */
export const SQS_MAX_ATTRIBUTES = 10;

/** The headers key holding the SQS system attributes and the DLQ's message id (Triage's, never sent). */
export const SYSTEM_KEY = '$sqs';

type StoredAttribute = string | { $type: string; value?: string; $bytes?: string };

function storedAttribute(v: MessageAttributeValue): StoredAttribute {
  const type = v.DataType ?? 'String';
  if (type.startsWith('Binary')) return { $type: type, $bytes: Buffer.from(v.BinaryValue ?? new Uint8Array()).toString('base64') };
  if (type === 'String') return v.StringValue ?? '';
  return { $type: type, value: v.StringValue ?? '' };
}

function sentAttribute(v: unknown): MessageAttributeValue | null {
  if (typeof v === 'string') return { DataType: 'String', StringValue: v };
  if (typeof v === 'number' || typeof v === 'boolean') return { DataType: 'String', StringValue: String(v) };
  if (!v || typeof v !== 'object') return null;
  const o = v as { $type?: unknown; value?: unknown; $bytes?: unknown };
  if (typeof o.$type !== 'string') return { DataType: 'String', StringValue: JSON.stringify(v) };
  if (o.$type.startsWith('Binary')) return { DataType: o.$type, BinaryValue: Buffer.from(String(o.$bytes ?? ''), 'base64') };
  return { DataType: o.$type, StringValue: String(o.value ?? '') };
}

const isTriageAttribute = (name: string) => name === TRIAGE_ATTRIBUTES.originalId || name === TRIAGE_ATTRIBUTES.redriveCount;

const millis = (v: string | undefined): Date | null => {
  const n = Number(v);
  return v && Number.isFinite(n) && n > 0 ? new Date(n) : null;
};

const nonNegativeInt = (v: string | undefined): number | null => {
  const n = Number(v);
  return v !== undefined && Number.isInteger(n) && n >= 0 ? n : null;
};

/** The failure history's reason for a wrapped message, in its service's words. */
const ENVELOPE_REASONS = {
  'lambda-destination': 'Lambda on-failure destination',
  'lambda-dlq': 'Lambda dead-letter queue',
  eventbridge: 'EventBridge target dead-letter queue',
  sns: 'SNS subscription dead-letter queue',
} as const;

/** A message received from the dead-letter queue as Triage records it. */
export function toDeadLetter(
  msg: Message,
  opts: { errorText?: ErrorTextMapping; sourceQueue?: string | null; envelope?: SqsEnvelopeSetting; now?: Date } = {},
): NewDeadLetter {
  const attrs = msg.Attributes ?? {};
  const body = msg.Body ?? '';
  let messageAttrs = msg.MessageAttributes ?? {};
  // A message SQS's redrive policy moved was received by a consumer of the source queue: its body is
  // what that consumer failed on (an SNS notification, a Lambda record it processes), and a redrive
  // must send it back whole. `auto` reads only what AWS wrote into the queue itself; a named setting
  // is the source's own word.
  const setting = opts.envelope === undefined || opts.envelope === 'auto' ? (attrs.DeadLetterQueueSourceArn ? 'none' : 'auto') : opts.envelope;
  const unwrapped = unwrapEnvelope(body, messageAttrs, setting);
  const wrapped = unwrapped && 'payload' in unwrapped ? unwrapped : null;
  if (wrapped) {
    // The wrapper's attributes are evidence, never the event's: a redrive must not send them back.
    messageAttrs = { ...Object.fromEntries(Object.entries(messageAttrs).filter(([k]) => !wrapped.envelopeAttributes.includes(k))), ...wrapped.eventAttributes };
  }
  const headers: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(messageAttrs)) headers[name] = storedAttribute(value);
  headers[SYSTEM_KEY] = { ...attrs, MessageId: msg.MessageId ?? null, ...(msg.MD5OfBody ? { MD5OfBody: msg.MD5OfBody } : {}) };
  if (unwrapped) headers[ENVELOPE_KEY] = 'payload' in unwrapped ? unwrapped.evidence : { type: unwrapped.kind, problem: unwrapped.problem };
  const payload = wrapped ? wrapped.payload : Buffer.from(body, 'utf8');
  const found = errorTextOf(Object.fromEntries(Object.entries(messageAttrs).map(([k, v]) => [k, v.StringValue ?? null])), payload, opts.errorText);
  // The service's own report of the failure wins; SNS carries none, so the source's mapping may still find one.
  const error =
    wrapped?.errorType || wrapped?.errorMessage ? { errorType: wrapped.errorType, errorMessage: wrapped.errorMessage, errorStack: wrapped.errorStack } : found;
  const originalId = messageAttrs[TRIAGE_ATTRIBUTES.originalId]?.StringValue;
  const redriveCount = nonNegativeInt(messageAttrs[TRIAGE_ATTRIBUTES.redriveCount]?.StringValue) ?? 0;
  const now = opts.now ?? new Date();
  const receiveCount = wrapped?.attempts ?? nonNegativeInt(attrs.ApproximateReceiveCount);
  // A wrapped message never went through a source queue of SQS: the service's time is its failure's.
  const firstReceive = wrapped?.failedAt ?? millis(attrs.ApproximateFirstReceiveTimestamp);
  const sourceArn = attrs.DeadLetterQueueSourceArn;
  const sourceQueue = sourceArn ? sourceArn.split(':').pop()! : (opts.sourceQueue ?? null);
  const consumer = wrapped?.consumer ?? sourceQueue;
  const history: FailureEntry[] = [
    {
      // SQS's own word (the redrive policy moved it after maxReceiveCount receives), or the wrapping service's.
      reason: wrapped ? ENVELOPE_REASONS[wrapped.kind] : 'maxReceiveCount exceeded',
      errorType: error.errorType,
      errorMessage: error.errorMessage,
      count: receiveCount ?? 1,
      firstAt: (firstReceive ?? now).toISOString(),
      lastAt: (wrapped?.failedAt ?? now).toISOString(),
      ...(sourceQueue ? { queue: sourceQueue } : {}),
    },
  ];
  return {
    messageId: originalId || msg.MessageId!,
    // A message Triage redrove that died again is the next generation of the same message id.
    generation: redriveCount,
    redriveCount,
    payload,
    // A Lambda record holds its event as JSON, so what comes out of it is JSON text.
    contentType: wrapped?.kind === 'lambda-destination' ? 'application/json' : null,
    headers,
    reason: 'MaxReceives',
    errorType: error.errorType,
    errorMessage: error.errorMessage,
    errorStack: error.errorStack,
    // The broker's count: every receive, in the source queue and since in the DLQ (Triage's own included).
    receiveCount: receiveCount ?? undefined,
    // When the message was first sent: SQS counts a standard queue's retention from then, in the DLQ too.
    enqueuedAt: millis(attrs.SentTimestamp),
    firstFailedAt: firstReceive ?? now,
    lastFailedAt: wrapped?.failedAt ?? now,
    deadAt: now,
    orderingKey: attrs.MessageGroupId ?? null,
    idempotencyKey: attrs.MessageDeduplicationId ?? null,
    consumerName: consumer,
    failureHistory: history,
  };
}

/** A redriven dead letter as a SendMessageBatch entry, or why it cannot be sent. */
export function redriveEntry(
  m: OutgoingRedrive,
  id: string,
  opts: { fifo: boolean },
): { entry: SendMessageBatchRequestEntry; size: number } | { error: string } {
  const stored = m.headers ?? {};
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, v] of Object.entries(stored)) {
    if (name === SYSTEM_KEY || name === ENVELOPE_KEY || isTriageAttribute(name)) continue;
    const a = sentAttribute(v);
    if (a) attributes[name] = a;
  }
  const own = Object.keys(attributes).length;
  if (own + 2 > SQS_MAX_ATTRIBUTES) {
    return {
      error: `The message has ${own} message attributes; SQS allows ${SQS_MAX_ATTRIBUTES} and Triage needs 2 of them (${TRIAGE_ATTRIBUTES.originalId}, ${TRIAGE_ATTRIBUTES.redriveCount}) to recognise it if it dies again`,
    };
  }
  attributes[TRIAGE_ATTRIBUTES.originalId] = { DataType: 'String', StringValue: m.messageId };
  attributes[TRIAGE_ATTRIBUTES.redriveCount] = { DataType: 'Number', StringValue: String(m.redriveCount + 1) };
  let body: string;
  try {
    body = new TextDecoder('utf-8', { fatal: true }).decode(m.payload);
  } catch {
    return { error: 'The body is not UTF-8 text; SQS message bodies are text' };
  }
  const entry: SendMessageBatchRequestEntry = { Id: id, MessageBody: body, MessageAttributes: attributes };
  if (opts.fifo) {
    const system = (stored[SYSTEM_KEY] ?? {}) as Record<string, unknown>;
    const group = m.orderingKey ?? (typeof system.MessageGroupId === 'string' ? system.MessageGroupId : null);
    if (!group) return { error: 'A FIFO queue needs a message group id and this message has none' };
    entry.MessageGroupId = group;
    // New: reusing the original inside SQS's 5-minute deduplication window would drop the redrive.
    // Stable per (dead letter, redrive): a resend of the same item after a crash is deduplicated.
    entry.MessageDeduplicationId = `triage-${m.deadLetterId}-${m.redriveCount + 1}`;
  }
  const size =
    m.payload.byteLength +
    Object.entries(attributes).reduce(
      (n, [k, a]) => n + k.length + (a.DataType?.length ?? 0) + (a.StringValue ? Buffer.byteLength(a.StringValue) : (a.BinaryValue?.byteLength ?? 0)),
      0,
    );
  return { entry, size };
}
