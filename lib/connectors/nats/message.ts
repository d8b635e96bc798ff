// A JetStream advisory and the message it names ⇄ a Triage dead letter. Pure: no I/O, so the mapping
// is unit-tested on its own.
//
// Import keeps the message's exact bytes and its headers (a header sent once as a string, several
// times as an array of its values), plus what JetStream said about it under the reserved key "$nats":
// stream, consumer, subject, stream sequence, the advisory. The message id is Triage's
// `Triage-Original-Id` header (a message Triage redrove), else `Nats-Msg-Id`, else stream:sequence.
// Redrive publishes the same bytes and headers to the original subject with a new `Nats-Msg-Id`:
// the original one, inside the stream's duplicate window, would make JetStream drop the redrive as a
// duplicate without a word.
import type { DeadLetterReason, FailureEntry, NewDeadLetter } from '@/lib/model/dead-letter';
import type { OutgoingRedrive } from '@/lib/model/redrive-destination';
import { errorTextOf, type ErrorTextMapping } from '../error-text';

/** Headers Triage writes on a redriven message. */
export const TRIAGE_HEADERS = {
  /** The message id of the dead letter: a redriven message that dies again keeps it. */
  originalId: 'Triage-Original-Id',
  /** Times Triage redrove this message: the generation of its next dead letter. */
  redriveCount: 'Triage-Redrive-Count',
  /** The dead letter this message was redriven from. */
  deadLetterId: 'Triage-Dead-Letter-Id',
} as const;

/** The headers key holding what JetStream said about the message (Triage's, never sent as a header). */
export const NATS_KEY = '$nats';

/** The advisory subjects a consumer's dead letters are announced on (nats-server ≥ 2.2 emits both). */
export const ADVISORY_SUBJECTS = {
  maxDeliveries: (stream: string, consumer: string) => `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${stream}.${consumer}`,
  terminated: (stream: string, consumer: string) => `$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.${stream}.${consumer}`,
};

/** io.nats.jetstream.advisory.v1.max_deliver and …v1.terminated, the fields Triage reads. */
export interface Advisory {
  kind: 'max_deliveries' | 'terminated';
  id: string;
  timestamp: Date;
  stream: string;
  consumer: string;
  streamSeq: number;
  deliveries: number;
  /** A termination's reason (`+TERM <reason>`, nats-server ≥ 2.10.4). */
  reason: string | null;
}

/** An advisory's JSON, or null when it is not one Triage understands. */
export function parseAdvisory(data: Uint8Array): Advisory | null {
  let a: Record<string, unknown>;
  try {
    a = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  const kind =
    a.type === 'io.nats.jetstream.advisory.v1.max_deliver' ? 'max_deliveries' : a.type === 'io.nats.jetstream.advisory.v1.terminated' ? 'terminated' : null;
  const seq = Number(a.stream_seq);
  const timestamp = new Date(String(a.timestamp));
  if (!kind || !Number.isSafeInteger(seq) || seq < 1 || typeof a.stream !== 'string' || typeof a.consumer !== 'string' || Number.isNaN(timestamp.getTime()))
    return null;
  return {
    kind,
    id: String(a.id ?? ''),
    timestamp,
    stream: a.stream,
    consumer: a.consumer,
    streamSeq: seq,
    deliveries: Number.isSafeInteger(Number(a.deliveries)) ? Number(a.deliveries) : 0,
    reason: typeof a.reason === 'string' && a.reason ? a.reason : null,
  };
}

/**
 * A terminated advisory with no delivery is nats-server's own bookkeeping (a message removed from
 * the stream while it was pending), not a consumer giving up on it: nothing died.
 */
export const isDeadLetterAdvisory = (a: Advisory) => a.kind === 'max_deliveries' || a.deliveries > 0;

/** The message as JetStream stores it (a StoredMsg of the client, reduced to what is mapped). */
export interface StoredMessage {
  subject: string;
  seq: number;
  data: Uint8Array;
  time: Date;
  /** Header name → its values, in order. */
  headers: [string, string[]][];
}

/** What a dead letter knows when its message had left the stream before Triage read the advisory. */
export const GONE_NOTE = "not in the stream when Triage read the advisory (deleted, or removed by the stream's limits)";

const REASONS: Record<Advisory['kind'], DeadLetterReason> = { max_deliveries: 'MaxReceives', terminated: 'Rejected' };

const nonNegativeInt = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};

/**
 * The dead letter of one advisory. `stored` is null when the message was gone: the dead letter is
 * then a tombstone (empty payload, `$nats.gone`) that keeps what the advisory knows, so the death is
 * on record; a redrive refuses it, there is nothing to send.
 */
export function toDeadLetter(advisory: Advisory, stored: StoredMessage | null, opts: { errorText?: ErrorTextMapping } = {}): NewDeadLetter {
  const headers: Record<string, unknown> = {};
  for (const [k, values] of stored?.headers ?? []) headers[k] = values.length === 1 ? values[0] : values;
  const header = (name: string): string | null => {
    const found = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
    const v = found === undefined ? undefined : headers[found];
    return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] as string) : null;
  };
  const payload = stored?.data ?? new Uint8Array(0);
  const error = errorTextOf(headers, payload, opts.errorText);
  const errorMessage = error.errorMessage ?? advisory.reason;
  const redriveCount = nonNegativeInt(header(TRIAGE_HEADERS.redriveCount)) ?? 0;
  const history: FailureEntry = {
    // nats-server's word, with a termination's own reason when it gave one.
    reason: advisory.reason ? `${advisory.kind}: ${advisory.reason}` : advisory.kind,
    errorType: error.errorType,
    errorMessage,
    count: advisory.deliveries,
    firstAt: advisory.timestamp.toISOString(),
    lastAt: advisory.timestamp.toISOString(),
    queue: `${advisory.stream} > ${advisory.consumer}`,
    ...(stored ? { routingKeys: [stored.subject] } : {}),
  };
  return {
    messageId: header(TRIAGE_HEADERS.originalId) ?? header('Nats-Msg-Id') ?? `${advisory.stream}:${advisory.streamSeq}`,
    // A message Triage redrove that died again is the next generation of the same message id.
    generation: redriveCount,
    redriveCount,
    payload,
    contentType: header('Content-Type'),
    headers: {
      ...headers,
      [NATS_KEY]: {
        stream: advisory.stream,
        consumer: advisory.consumer,
        seq: advisory.streamSeq,
        advisory: advisory.kind,
        advisoryId: advisory.id,
        ...(stored ? { subject: stored.subject, storedAt: stored.time.toISOString() } : { gone: GONE_NOTE }),
      },
    },
    reason: REASONS[advisory.kind],
    errorType: error.errorType,
    errorMessage,
    errorStack: error.errorStack,
    receiveCount: advisory.deliveries,
    enqueuedAt: stored?.time ?? null,
    firstFailedAt: advisory.timestamp,
    lastFailedAt: advisory.timestamp,
    deadAt: advisory.timestamp,
    correlationId: header('Correlation-Id'),
    consumerName: advisory.consumer,
    failureHistory: [history],
  };
}

/** Headers JetStream reads as instructions on a publish: replaying them would fail or drop the redrive. */
const DIRECTIVE_HEADER = /^(nats-msg-id|nats-expected-.*|nats-rollup|nats-ttl|nats-schedule.*)$/i;

export interface NatsRedrivePublish {
  subject: string;
  /** The application's stream: the publish must land there (`Nats-Expected-Stream`). */
  stream: string;
  payload: Uint8Array;
  headers: [string, string][];
  /** New per dead letter and redrive, so a retried publish of the same item is the one JetStream dedupes. */
  msgId: string;
}

/** The publish of a redriven dead letter, or why there is none (the message's failure). */
export function redrivePublish(m: OutgoingRedrive): NatsRedrivePublish | { error: string } {
  // Where it came from, from the original's stored headers: an edited copy cannot send itself elsewhere.
  const nats = (m.origin[NATS_KEY] ?? {}) as Record<string, unknown>;
  if (typeof nats.gone === 'string')
    return {
      error: `The message was gone from stream "${String(nats.stream)}" before Triage read it (sequence ${String(nats.seq)}): there is nothing to redrive`,
    };
  if (typeof nats.subject !== 'string' || typeof nats.stream !== 'string')
    return { error: 'This dead letter does not say which subject and stream it came from' };
  const headers: [string, string][] = [];
  const ours = new Set(Object.values(TRIAGE_HEADERS).map((h) => h.toLowerCase()));
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    if (k === NATS_KEY || DIRECTIVE_HEADER.test(k) || ours.has(k.toLowerCase())) continue;
    for (const value of Array.isArray(v) ? v : [v]) headers.push([k, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  const next = m.redriveCount + 1;
  headers.push([TRIAGE_HEADERS.originalId, m.messageId], [TRIAGE_HEADERS.redriveCount, String(next)], [TRIAGE_HEADERS.deadLetterId, m.deadLetterId.toString()]);
  return { subject: nats.subject, stream: nats.stream, payload: m.payload, headers, msgId: `triage-${m.deadLetterId}-${next}` };
}
