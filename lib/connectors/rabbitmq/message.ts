// A RabbitMQ message ⇄ a Triage dead letter. Pure: no I/O, so the mapping is unit-tested on its own.
//
// Import keeps everything the message carried: the body's exact bytes; the headers table as JSON
// (byte-array values as { "$bytes": base64 }, AMQP timestamps and decimals in amqplib's
// { "!": type, value } form, so they publish back with their types); the other AMQP properties under
// the reserved key "$amqp"; x-death (the broker's own record of each death) both in the headers and
// as the failure history. Redrive publishes the same bytes, properties and headers, minus what the
// broker owns (x-death, x-first-/x-last-death-*, x-delivery-count: RabbitMQ 4 refuses a
// publisher-set x-death), plus Triage's redrive count.
import { createHash } from 'node:crypto';
import type { ConsumeMessage, Options } from 'amqplib';
import type { DeadLetterReason, FailureEntry, NewDeadLetter } from '@/lib/model/dead-letter';
import type { OutgoingRedrive } from '@/lib/model/redrive-destination';
import { errorTextOf, type ErrorTextMapping } from '../error-text';

/** Headers Triage writes on a redriven message. */
export const TRIAGE_HEADERS = {
  /** Times Triage redrove this message: the generation of its next dead letter. */
  redriveCount: 'x-triage-redrive-count',
  /** The dead letter this message was redriven from. */
  deadLetterId: 'x-triage-dead-letter-id',
} as const;

/** The headers key holding the AMQP properties other than headers (Triage's, never sent as a header). */
export const PROPERTIES_KEY = '$amqp';

/** Headers the broker sets; a publish must not carry them (RabbitMQ 4 refuses x-death from a publisher). */
const BROKER_HEADERS = new Set([
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
  'x-delivery-count',
  'x-received-from',
]);

/** RabbitMQ's dead-letter reasons, in Triage's words (the broker's own word stays in the history). */
const REASONS: Record<string, DeadLetterReason> = {
  rejected: 'Rejected',
  expired: 'Expired',
  maxlen: 'MaxLength',
  delivery_limit: 'MaxReceives',
};

interface XDeathEntry {
  queue: string;
  reason: string;
  count: number;
  time: Date | null;
  exchange: string;
  routingKeys: string[];
}

const BYTES = '$bytes';

/** amqplib's decoded table → JSON: byte arrays become { $bytes: base64 }. */
function toJson(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return { [BYTES]: Buffer.from(v).toString('base64') };
  if (Array.isArray(v)) return v.map(toJson);
  // A loop, not Object.fromEntries(Object.entries()): it runs for every header of every imported message.
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = toJson((v as Record<string, unknown>)[k]);
    // A header named __proto__ stays a header (as Object.fromEntries keeps it), never the object's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

/** Whether a decoded table holds a byte array anywhere (the only value toJson changes). */
function holdsBytes(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (v instanceof Uint8Array) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (holdsBytes(x)) return true;
    return false;
  }
  for (const k in v) if (Object.hasOwn(v, k) && holdsBytes((v as Record<string, unknown>)[k])) return true;
  return false;
}

/**
 * toJson without the copy when nothing changes: most headers tables hold no byte array, and nobody
 * mutates the decoded table, so the dead letter may share it (its JSON is the same either way).
 */
function headersJson(headers: Record<string, unknown>): Record<string, unknown> {
  return holdsBytes(headers) ? (toJson(headers) as Record<string, unknown>) : headers;
}

/** JSON → an amqplib table: { $bytes } back to a Buffer (published as a byte array). */
function fromJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fromJson);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === BYTES && typeof o[BYTES] === 'string') return Buffer.from(o[BYTES], 'base64');
    return Object.fromEntries(keys.map((k) => [k, fromJson(o[k])]));
  }
  return v;
}

function amqpTime(v: unknown): Date | null {
  // x-death times are AMQP timestamps (seconds), decoded by amqplib as { '!': 'timestamp', value }.
  const seconds = v && typeof v === 'object' && 'value' in v ? Number((v as { value: unknown }).value) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
}

const str = (v: unknown): string | null => (v == null ? null : Buffer.isBuffer(v) ? v.toString('utf8') : String(v));

export function xDeathOf(headers: Record<string, unknown>): XDeathEntry[] {
  const raw = headers['x-death'];
  if (!Array.isArray(raw)) return [];
  return raw
    .filter((e): e is Record<string, unknown> => !!e && typeof e === 'object')
    .map((e) => ({
      queue: str(e.queue) ?? '',
      reason: str(e.reason) ?? 'unknown',
      count: Number(e.count) || 1,
      time: amqpTime(e.time),
      exchange: str(e.exchange) ?? '',
      routingKeys: Array.isArray(e['routing-keys']) ? e['routing-keys'].map((k) => str(k) ?? '') : [],
    }));
}

/**
 * The entry of the message's first death: the one x-first-death-queue/-reason name (RabbitMQ keeps
 * the most recent death first in x-death), else the oldest entry.
 */
export function firstDeath(headers: Record<string, unknown>, deaths = xDeathOf(headers)): XDeathEntry | null {
  if (deaths.length === 0) return null;
  const queue = str(headers['x-first-death-queue']);
  const reason = str(headers['x-first-death-reason']);
  return deaths.find((d) => d.queue === queue && d.reason === reason) ?? deaths[deaths.length - 1]!;
}

/**
 * The id of a message that carries none: its body's SHA-256 with its first death's time and count,
 * so identical bodies dead-lettered separately stay separate, and a redelivery of one keeps its id.
 * A message with no x-death (republished into the queue by a framework) hashes its headers too.
 */
export function derivedMessageId(payload: Uint8Array, first: XDeathEntry | null, headers: Record<string, unknown> = {}): string {
  const sha = createHash('sha256').update(payload).digest('hex');
  if (first) return `sha256:${sha}:${first.time ? first.time.getTime() / 1000 : 0}:${first.count}`;
  const h = createHash('sha256')
    .update(JSON.stringify(toJson(headers)))
    .digest('hex')
    .slice(0, 16);
  return `sha256:${sha}:h${h}`;
}

const nonNegativeInt = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isInteger(n) && n >= 0 ? n : null;
};

/** AMQP properties kept under PROPERTIES_KEY, in this order (redrivePublish copies them back). */
const COPIED_PROPERTIES = ['deliveryMode', 'priority', 'type', 'appId', 'userId', 'replyTo', 'expiration', 'contentEncoding', 'clusterId'] as const;

/** A delivered dead letter as Triage records it. */
export function toDeadLetter(
  msg: Pick<ConsumeMessage, 'content' | 'properties' | 'fields'>,
  opts: { errorText?: ErrorTextMapping; now?: Date } = {},
): NewDeadLetter {
  const p = msg.properties;
  const rawHeaders = (p.headers ?? {}) as Record<string, unknown>;
  const deaths = xDeathOf(rawHeaders);
  const latest = deaths[0] ?? null;
  const first = firstDeath(rawHeaders, deaths);
  const payload = msg.content;
  const error = errorTextOf(rawHeaders, payload, opts.errorText);
  const redriveCount = nonNegativeInt(str(rawHeaders[TRIAGE_HEADERS.redriveCount])) ?? 0;
  // Loops, not closures and map/filter chains: this runs for every imported message.
  const properties: Record<string, unknown> = {};
  for (const k of COPIED_PROPERTIES) {
    const v = p[k];
    if (v !== undefined && v !== null) properties[k] = v;
  }
  // Where this copy was delivered from: the dead-letter exchange and key.
  if (msg.fields.exchange != null) properties.deliveredExchange = msg.fields.exchange;
  if (msg.fields.routingKey != null) properties.deliveredRoutingKey = msg.fields.routingKey;
  const headers = { ...headersJson(rawHeaders), [PROPERTIES_KEY]: properties };
  const deadAt = latest?.time ?? opts.now ?? new Date();
  const history: FailureEntry[] = [];
  let firstMs = Infinity;
  let deathCount = 0;
  for (let i = 0; i < deaths.length; i++) {
    const d = deaths[i]!;
    if (d.time && d.time.getTime() < firstMs) firstMs = d.time.getTime();
    deathCount += d.count;
    const at = (d.time ?? deadAt).toISOString();
    history.push({
      // The broker's own word ("rejected", "delivery_limit"…), with where it happened.
      reason: d.reason,
      errorType: i === 0 ? error.errorType : null,
      errorMessage: i === 0 ? error.errorMessage : null,
      count: d.count,
      firstAt: at,
      lastAt: at,
      queue: d.queue,
      exchange: d.exchange,
      routingKeys: d.routingKeys,
    });
  }
  const deliveryCount = nonNegativeInt(rawHeaders['x-delivery-count']);
  return {
    messageId: str(p.messageId) || derivedMessageId(payload, first, rawHeaders),
    // A message Triage redrove that died again is the next generation of the same message id.
    generation: redriveCount,
    redriveCount,
    payload,
    contentType: str(p.contentType),
    headers,
    // No x-death: a consumer framework put it here itself (Spring's RepublishMessageRecoverer), a rejection.
    reason: latest ? (REASONS[latest.reason] ?? 'Rejected') : 'Rejected',
    errorType: error.errorType,
    errorMessage: error.errorMessage,
    errorStack: error.errorStack,
    // Each death counts once: RabbitMQ drops a quorum queue's x-delivery-count when it dead-letters
    // (a copy delivered with it, e.g. republished by a framework, keeps it).
    receiveCount: deliveryCount !== null ? deliveryCount + 1 : deathCount,
    enqueuedAt: amqpTime(p.timestamp),
    firstFailedAt: firstMs < Infinity ? new Date(firstMs) : deadAt,
    lastFailedAt: deadAt,
    deadAt,
    correlationId: str(p.correlationId),
    consumerName: latest?.queue ?? null,
    failureHistory: history.length ? history : undefined,
  };
}

/**
 * Where a redrive publishes: the configured target queue, or the first death's exchange and routing
 * keys, or (no x-death) the original exchange and key Spring's RepublishMessageRecoverer wrote.
 */
export function redriveRoute(headers: Record<string, unknown>, targetQueue: string | undefined): { exchange: string; routingKey: string; cc: string[] } | null {
  if (targetQueue) return { exchange: '', routingKey: targetQueue, cc: [] };
  const first = firstDeath(headers);
  if (!first) {
    const exchange = str(headers['x-original-exchange']);
    const routingKey = str(headers['x-original-routingKey']);
    return exchange !== null && routingKey !== null ? { exchange, routingKey, cc: [] } : null;
  }
  const [routingKey, ...cc] = first.routingKeys.length ? first.routingKeys : [first.queue];
  return { exchange: first.exchange, routingKey: routingKey!, cc };
}

/** The publish of a redriven dead letter: its original properties and headers, minus the broker's, plus Triage's. */
export function redrivePublish(m: OutgoingRedrive): { content: Buffer; options: Options.Publish } {
  const stored = m.headers ?? {};
  const props = (stored[PROPERTIES_KEY] ?? {}) as Record<string, unknown>;
  const headers: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) if (k !== PROPERTIES_KEY && !BROKER_HEADERS.has(k.toLowerCase())) headers[k] = fromJson(v);
  headers[TRIAGE_HEADERS.redriveCount] = m.redriveCount + 1;
  headers[TRIAGE_HEADERS.deadLetterId] = m.deadLetterId.toString();
  const options: Options.Publish = {
    headers,
    messageId: m.messageId,
    mandatory: true,
    ...(m.contentType ? { contentType: m.contentType } : {}),
    ...(m.correlationId ? { correlationId: m.correlationId } : {}),
    ...(m.enqueuedAt ? { timestamp: Math.floor(m.enqueuedAt.getTime() / 1000) } : {}),
  };
  const copy = ['deliveryMode', 'priority', 'type', 'appId', 'userId', 'replyTo', 'contentEncoding'] as const;
  for (const k of copy) if (props[k] !== undefined && props[k] !== null) (options as Record<string, unknown>)[k] = props[k];
  // A per-message TTL already ran out once (that may be why it died): it is not reapplied.
  return { content: Buffer.from(m.payload.buffer, m.payload.byteOffset, m.payload.byteLength), options };
}
