// An Azure Storage queue message ⇄ a Triage dead letter. Pure: no I/O, so the mapping is unit-tested
// on its own.
//
// An Azure message is its text and four facts (messageId, insertedOn, expiresOn, dequeueCount): no
// headers, no exception. The payload is the text's bytes, or what its base64 decodes to when the
// source says the application writes base64 (the Functions runtime's default); a text that is not
// base64 then is kept as it is, with an error saying so. The facts go under the reserved header key
// "$azure". Functions put no exception into a poison message: without the source's own error-text
// mapping (JSON paths), the error is "PoisonMessage" with the queue and the payload's shape, so
// clusters group by those.
import type { FailureEntry, NewDeadLetter } from '@/lib/model/dead-letter';
import type { OutgoingRedrive } from '@/lib/model/redrive-destination';
import { errorTextOf, type ErrorTextMapping } from '../error-text';

/** The headers key holding an Azure message's facts (Triage's, never sent). */
export const SYSTEM_KEY = '$azure';

export const POISON_ERROR_TYPE = 'PoisonMessage';
export const NOT_BASE64_ERROR_TYPE = 'TriageNotBase64';

/** Azure's limit on one message's text as stored (after any base64). */
export const AZURE_MAX_MESSAGE_BYTES = 64 * 1024;

export type AzureEncoding = 'text' | 'base64';

/** What the import reads of a received (or peeked) message. */
export interface AzureMessage {
  messageId: string;
  insertedOn: Date;
  expiresOn: Date;
  dequeueCount: number;
  messageText: string;
}

/** A previous redrive this message is a re-death of (lib/connectors/azure-queue/links.ts). */
export interface RedriveLink {
  originalId: string;
  redriveCount: number;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The bytes a message's text stands for; `null` when base64 is expected and the text is not. */
export function payloadOf(text: string, encoding: AzureEncoding): Buffer | null {
  if (encoding === 'text') return Buffer.from(text, 'utf8');
  const compact = text.replace(/\s+/g, '');
  return BASE64.test(compact) ? Buffer.from(compact, 'base64') : null;
}

/** "JSON {customer, items, orderId}", "JSON array", "text": what clusters group by when no error text is mapped. */
export function payloadShape(payload: Uint8Array): string {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
  } catch {
    return payload.byteLength === 0 ? 'empty' : 'not JSON';
  }
  if (Array.isArray(body)) return 'JSON array';
  if (body && typeof body === 'object') {
    const keys = Object.keys(body).sort();
    return `JSON object {${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', …' : ''}}`;
  }
  return `JSON ${body === null ? 'null' : typeof body}`;
}

/** A message received from the poison queue as Triage records it. */
export function toDeadLetter(
  msg: AzureMessage,
  opts: { queue: string; encoding: AzureEncoding; errorText?: ErrorTextMapping; link?: RedriveLink | null; now?: Date },
): NewDeadLetter {
  const now = opts.now ?? new Date();
  const decoded = payloadOf(msg.messageText, opts.encoding);
  const payload = decoded ?? Buffer.from(msg.messageText, 'utf8');
  const facts = {
    queue: opts.queue,
    messageId: msg.messageId,
    insertedOn: msg.insertedOn.toISOString(),
    expiresOn: msg.expiresOn.toISOString(),
    dequeueCount: msg.dequeueCount,
    encoding: decoded ? opts.encoding : 'text',
  };
  let error: { errorType: string | null; errorMessage: string | null; errorStack: string | null };
  if (!decoded) {
    error = {
      errorType: NOT_BASE64_ERROR_TYPE,
      errorMessage: `The source reads this queue as base64, but this message's text is not base64: it is kept as the text's UTF-8 bytes (queue ${opts.queue})`,
      errorStack: null,
    };
  } else {
    const mapped = errorTextOf({}, payload, opts.errorText);
    error = mapped.from
      ? mapped
      : {
          errorType: POISON_ERROR_TYPE,
          errorMessage: `Poison message on queue ${opts.queue}: ${payloadShape(payload)} (the message carries no exception)`,
          errorStack: null,
        };
  }
  const redriveCount = opts.link?.redriveCount ?? 0;
  const history: FailureEntry[] = [
    {
      // Azure Functions' own words: moved after maxDequeueCount failed dequeues.
      reason: 'maxDequeueCount exceeded',
      errorType: error.errorType,
      errorMessage: error.errorMessage,
      count: Math.max(msg.dequeueCount, 1),
      firstAt: msg.insertedOn.toISOString(),
      lastAt: now.toISOString(),
      queue: opts.queue,
    },
  ];
  return {
    // A message Triage redrove that died again is the next generation of the same message id.
    messageId: opts.link?.originalId ?? msg.messageId,
    generation: redriveCount,
    redriveCount,
    payload,
    contentType: null,
    headers: { [SYSTEM_KEY]: facts },
    reason: 'MaxReceives',
    errorType: error.errorType,
    errorMessage: error.errorMessage,
    errorStack: error.errorStack,
    // Dequeues of the poison message itself (Triage's included): Azure keeps no count across the move.
    receiveCount: msg.dequeueCount,
    // When it entered the poison queue: its time to live counts from then.
    enqueuedAt: msg.insertedOn,
    firstFailedAt: msg.insertedOn,
    lastFailedAt: now,
    deadAt: now,
    consumerName: opts.queue.replace(/-poison$/, '') || opts.queue,
    failureHistory: history,
  };
}

/** A redriven dead letter as the text to send, or why it cannot be sent (the message's own failure). */
export function redriveText(m: OutgoingRedrive, encoding: AzureEncoding): { text: string } | { error: string } {
  let text: string;
  if (encoding === 'base64') {
    text = Buffer.from(m.payload.buffer, m.payload.byteOffset, m.payload.byteLength).toString('base64');
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(m.payload);
    } catch {
      return { error: "The payload is not UTF-8 text and the source sends text: set the source's encoding to base64 if the application reads base64" };
    }
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > AZURE_MAX_MESSAGE_BYTES) {
    return {
      error: `The message is ${bytes.toLocaleString('en')} bytes${encoding === 'base64' ? ' as base64' : ''}; an Azure queue message may be at most 65,536`,
    };
  }
  return { text };
}
