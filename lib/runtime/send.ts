// Producing to a source queue: a new message, or a dead letter sent back by a redrive.
import { randomUUID } from 'node:crypto';
import { AppError } from '@/lib/errors';
import { enqueueBulk } from '@/lib/queue/enqueue';
import { encodeBody, jobIdFor, type Envelope } from '@/lib/queue/envelope';
import { sourcePolicy } from './policy';

// Attempts, backoff and retention of a message job are its catalog entry's (lib/queue/catalog.ts).
const BULK_CHUNK = 1_000;

export interface SendOptions {
  /** Defaults to a random UUID. A second send with the same id while the first is in flight is absorbed. */
  messageId?: string;
  /** Ordering key, recorded on the dead letter. */
  key?: string;
  idempotencyKey?: string;
  correlationId?: string;
}

export interface OutgoingMessage extends SendOptions {
  body: Uint8Array;
  headers?: Record<string, string>;
}

function checkMessageId(id: string): string {
  if (id.length === 0 || id.length > 512) throw new AppError('bad_request', 'A message id has 1 to 512 characters');
  // Postgres text cannot hold these: such a message could never become a dead letter as it is.
  if (id.includes('\u0000') || !(id as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    throw new AppError('bad_request', 'A message id must not contain NUL or unpaired surrogates');
  }
  return id;
}

async function addEnvelopes(sourceName: string, envelopes: Envelope[]): Promise<void> {
  for (let i = 0; i < envelopes.length; i += BULK_CHUNK) {
    const chunk = envelopes.slice(i, i + BULK_CHUNK);
    await enqueueBulk(
      'message',
      chunk.map((data) => ({ data, jobId: jobIdFor(data.messageId, data.redriveCount) })),
      { source: sourceName },
    );
  }
}

/** Send one message to a built-in source; returns its message id. */
export async function send(sourceName: string, bytes: Uint8Array, headers: Record<string, string> = {}, opts: SendOptions = {}): Promise<string> {
  const [id] = await sendMany(sourceName, [{ ...opts, body: bytes, headers }]);
  return id!;
}

/** Send several messages to a built-in source in one round trip per thousand; returns their ids in order. */
export async function sendMany(sourceName: string, messages: OutgoingMessage[]): Promise<string[]> {
  const policy = await sourcePolicy(sourceName);
  const enqueuedAt = new Date().toISOString();
  const envelopes = messages.map((m): Envelope => {
    if (m.body.byteLength > policy.payloadLimitBytes) {
      throw new AppError('payload_too_large', `A message of ${m.body.byteLength} bytes is over the source's limit of ${policy.payloadLimitBytes}`);
    }
    return {
      body: encodeBody(m.body),
      headers: { ...m.headers },
      messageId: checkMessageId(m.messageId ?? randomUUID()),
      enqueuedAt,
      redriveCount: 0,
      key: m.key,
      idempotencyKey: m.idempotencyKey,
      correlationId: m.correlationId,
    };
  });
  await addEnvelopes(sourceName, envelopes);
  return envelopes.map((e) => e.messageId);
}

/** A dead letter as the redrive engine hands it back to its source. */
export interface RedriveMessage {
  deadLetterId: string | bigint;
  messageId: string;
  payload: Uint8Array;
  headers: Record<string, unknown>;
  /** The dead letter's redrive count; the message goes out with one more. */
  redriveCount: number;
  enqueuedAt?: Date | null;
  orderingKey?: string | null;
  idempotencyKey?: string | null;
  correlationId?: string | null;
}

export interface RedriveSent {
  deadLetterId: string;
  messageId: string;
  redriveCount: number;
}

const isTriageHeader = (name: string) => name.toLowerCase().startsWith('triage-');

/**
 * The redrive hook: send dead letters back to their (built-in) source queue with their exact bytes,
 * original headers, original message id and enqueue time, and the redrive count raised by one. The
 * consumer sees Triage-Message-Id, Triage-Redrive-Count and Triage-Dead-Letter-Id headers, and
 * reports each one's outcome through onRedrivenOutcome. Sending the same dead letter twice at the
 * same count while it is in flight is absorbed (same job id).
 */
export async function redriveToSource(sourceName: string, deadLetters: RedriveMessage[]): Promise<RedriveSent[]> {
  await sourcePolicy(sourceName); // a built-in source that exists, or a clear error
  const now = new Date().toISOString();
  const envelopes = deadLetters.map((d): Envelope => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(d.headers)) {
      if (!isTriageHeader(k)) headers[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    return {
      body: encodeBody(d.payload),
      headers,
      messageId: checkMessageId(d.messageId),
      enqueuedAt: d.enqueuedAt?.toISOString() ?? now,
      redriveCount: d.redriveCount + 1,
      key: d.orderingKey ?? undefined,
      idempotencyKey: d.idempotencyKey ?? undefined,
      correlationId: d.correlationId ?? undefined,
      deadLetterId: String(d.deadLetterId),
    };
  });
  await addEnvelopes(sourceName, envelopes);
  return envelopes.map((e) => ({ deadLetterId: e.deadLetterId!, messageId: e.messageId, redriveCount: e.redriveCount }));
}
