// AWS services that dead-letter into SQS wrap the failed event: a Lambda on-failure destination sends
// a JSON record around it, Lambda's classic DLQ and EventBridge's target DLQs put the error in message
// attributes, an SNS subscription's DLQ holds the SNS notification (or the raw message with raw
// delivery). Read as they are, the dead letter's payload is the wrapper, its error is nowhere, and a
// redrive sends the wrapper back. Pure: no I/O, unit-tested on AWS's documented shapes.
//
// `auto` reads a wrapper only when every field AWS always writes is there with its type, and looks
// into a body only when a cheap substring test says it may be one, so a plain event costs a few
// `includes` and is never taken for a wrapper. A source that names its wrapper gets the same reading,
// and a message that does not fit it is kept as it is, with the reason in its evidence.
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

export const SQS_ENVELOPES = ['auto', 'none', 'lambda-destination', 'lambda-dlq', 'eventbridge', 'sns'] as const;
export type SqsEnvelopeSetting = (typeof SQS_ENVELOPES)[number];
export type SqsEnvelopeKind = Exclude<SqsEnvelopeSetting, 'auto' | 'none'>;

/** The headers key holding the wrapper as evidence (Triage's, never sent on a redrive). */
export const ENVELOPE_KEY = '$envelope';

/** What the wrapper said, in the dead letter's terms. */
export interface Unwrapped {
  kind: SqsEnvelopeKind;
  /** The original event's bytes: what a redrive sends. */
  payload: Buffer;
  errorType: string | null;
  errorMessage: string | null;
  errorStack: string | null;
  /** Attempts the service made (Lambda's invoke count, EventBridge's retries + 1); else null. */
  attempts: number | null;
  /** The function, target or topic that failed, by name. */
  consumer: string | null;
  /** When the service gave up, when it says. */
  failedAt: Date | null;
  /** Message attributes that belong to the wrapper: kept in the evidence, never sent back. */
  envelopeAttributes: string[];
  /** The event's own attributes the wrapper carried (SNS's MessageAttributes), stored as SQS attributes. */
  eventAttributes: Record<string, MessageAttributeValue>;
  /** The wrapper itself, without the event: the dead letter's evidence. */
  evidence: Record<string, unknown>;
}

/** A source named a wrapper and this message is not one: kept as it is, with why. */
export interface NotUnwrapped {
  kind: SqsEnvelopeKind;
  problem: string;
}

type Attributes = Record<string, MessageAttributeValue>;

const str = (a: Attributes, name: string): string | null => {
  const v = a[name];
  return v && typeof v.StringValue === 'string' ? v.StringValue : null;
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The last segment of an ARN's resource (function name, rule, queue, topic), or null. */
function arnName(arn: unknown): string | null {
  if (typeof arn !== 'string' || !arn.startsWith('arn:')) return null;
  const parts = arn.split(':');
  // arn:aws:lambda:region:account:function:NAME[:qualifier]
  if (parts[2] === 'lambda' && parts[5] === 'function') return parts[6] || null;
  const resource = parts.slice(5).join(':');
  return resource.split('/').pop() || null;
}

function date(v: unknown): Date | null {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? new Date(t) : null;
}

/**
 * Where the value of a top-level key of a JSON object text starts and ends, read without building
 * anything (the text has been parsed already, so it is valid JSON). The last occurrence wins, as
 * JSON.parse keeps the last of duplicate keys.
 */
export function topLevelValueSpan(text: string, key: string): [number, number] | null {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123 /* { */) return null;
  i++;
  let found: [number, number] | null = null;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) === 125 /* } */) return found;
    const keyEnd = skipString(text, i);
    const name = text.slice(i, keyEnd);
    i = skipSpace(text, keyEnd);
    i++; // the colon
    const start = skipSpace(text, i);
    const end = skipValue(text, start);
    // A key written with escapes (\u0072equestPayload) is the same key once decoded.
    if (name === `"${key}"` || (name.includes('\\') && JSON.parse(name) === key)) found = [start, end];
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === 44 /* , */) i++;
    else return found;
  }
}

function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) i++;
    else return i;
  }
}

/** From an opening quote to just past its closing quote. */
function skipString(text: string, i: number): number {
  i++;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    // Escaped when preceded by an odd number of backslashes.
    let b = q - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    i = q + 1;
  }
}

function skipValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 34) return skipString(text, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 34) j = skipString(text, j) - 1;
      else if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return text.length;
  }
  // A number, true, false or null: up to the next delimiter.
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 44 || d === 125 || d === 93 || d === 32 || d === 9 || d === 10 || d === 13) break;
    j++;
  }
  return j;
}

function parseObject(body: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

const LAMBDA_CONDITIONS = new Set(['RetriesExhausted', 'EventAgeExceeded', 'RecursiveInvocationLoop']);

function stackText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((l) => typeof l === 'string')) return v.join('\n');
  return null;
}

/**
 * A Lambda on-failure destination record: `requestContext` (requestId, functionArn, condition,
 * approximateInvokeCount), `requestPayload` (the event as JSON), `responseContext` and the
 * function's error in `responsePayload`.
 */
function lambdaDestination(body: string): Unwrapped | string {
  const record = parseObject(body);
  if (!record) return 'the body is not a JSON object';
  const ctx = record.requestContext;
  if (!isObject(ctx)) return 'the record has no requestContext';
  if (typeof ctx.condition !== 'string' || !LAMBDA_CONDITIONS.has(ctx.condition)) return 'requestContext.condition is not a failure condition';
  if (!Number.isInteger(ctx.approximateInvokeCount) || (ctx.approximateInvokeCount as number) < 0)
    return 'requestContext.approximateInvokeCount is not a count';
  if (typeof ctx.functionArn !== 'string' || !ctx.functionArn.startsWith('arn:')) return 'requestContext.functionArn is not an ARN';
  if (!('requestPayload' in record)) return 'the record has no requestPayload';
  const span = topLevelValueSpan(body, 'requestPayload');
  if (!span) return 'the record has no requestPayload';
  const response = isObject(record.responsePayload) ? record.responsePayload : null;
  const responseContext = isObject(record.responseContext) ? record.responseContext : null;
  const errorType =
    (typeof response?.errorType === 'string' && response.errorType) ||
    (typeof responseContext?.functionError === 'string' && responseContext.functionError) ||
    ctx.condition;
  const errorMessage = typeof response?.errorMessage === 'string' ? response.errorMessage : null;
  const evidence: Record<string, unknown> = { type: 'lambda-destination' };
  for (const [k, v] of Object.entries(record)) if (k !== 'requestPayload') evidence[k] = v;
  return {
    kind: 'lambda-destination',
    payload: Buffer.from(body.slice(span[0], span[1]), 'utf8'),
    errorType,
    errorMessage,
    errorStack: stackText(response?.stackTrace) ?? stackText(response?.trace),
    attempts: ctx.approximateInvokeCount as number,
    consumer: arnName(ctx.functionArn),
    failedAt: date(record.timestamp),
    envelopeAttributes: [],
    eventAttributes: {},
    evidence,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LAMBDA_DLQ_ATTRIBUTES = ['RequestID', 'ErrorCode', 'ErrorMessage'];

/** Lambda's classic DLQ: the event is the body; RequestID, ErrorCode and ErrorMessage are attributes. */
function lambdaDlq(body: string, attrs: Attributes, strict: boolean): Unwrapped | string {
  const requestId = str(attrs, 'RequestID');
  const code = str(attrs, 'ErrorCode');
  const message = str(attrs, 'ErrorMessage');
  if (requestId === null || code === null || message === null) return 'the RequestID, ErrorCode and ErrorMessage attributes are not all there';
  if (strict && (!UUID.test(requestId) || !/^\d{3}$/.test(code))) return 'RequestID is not a request id or ErrorCode not a status code';
  // The message is the function's error as Lambda reports it, often its JSON cut to 1 KB.
  const parsed = message.startsWith('{') ? parseObject(message) : null;
  const errorType = typeof parsed?.errorType === 'string' ? parsed.errorType : `Lambda error ${code}`;
  const errorMessage = typeof parsed?.errorMessage === 'string' ? parsed.errorMessage : message;
  return {
    kind: 'lambda-dlq',
    payload: Buffer.from(body, 'utf8'),
    errorType,
    errorMessage,
    errorStack: stackText(parsed?.stackTrace) ?? stackText(parsed?.trace),
    attempts: null,
    consumer: null,
    failedAt: null,
    envelopeAttributes: LAMBDA_DLQ_ATTRIBUTES,
    eventAttributes: {},
    evidence: { type: 'lambda-dlq', RequestID: requestId, ErrorCode: code, ErrorMessage: message },
  };
}

const EVENTBRIDGE_ATTRIBUTES = ['RULE_ARN', 'TARGET_ARN', 'ERROR_CODE', 'ERROR_MESSAGE', 'EXHAUSTED_RETRY_CONDITION', 'RETRY_ATTEMPTS'];

/** An EventBridge target's DLQ: the event is the body; the rule, target and error are attributes. */
function eventBridge(body: string, attrs: Attributes, strict: boolean): Unwrapped | string {
  const rule = str(attrs, 'RULE_ARN');
  const target = str(attrs, 'TARGET_ARN');
  const code = str(attrs, 'ERROR_CODE');
  if (rule === null || target === null || code === null) return 'the RULE_ARN, TARGET_ARN and ERROR_CODE attributes are not all there';
  if (strict && (!rule.startsWith('arn:') || !target.startsWith('arn:'))) return 'RULE_ARN or TARGET_ARN is not an ARN';
  const retries = Number(str(attrs, 'RETRY_ATTEMPTS'));
  const evidence: Record<string, unknown> = { type: 'eventbridge' };
  for (const name of EVENTBRIDGE_ATTRIBUTES) if (str(attrs, name) !== null) evidence[name] = str(attrs, name);
  return {
    kind: 'eventbridge',
    payload: Buffer.from(body, 'utf8'),
    errorType: code,
    errorMessage: str(attrs, 'ERROR_MESSAGE'),
    errorStack: null,
    attempts: str(attrs, 'RETRY_ATTEMPTS') !== null && Number.isInteger(retries) && retries >= 0 ? retries + 1 : null,
    consumer: arnName(target),
    failedAt: null,
    envelopeAttributes: EVENTBRIDGE_ATTRIBUTES.filter((n) => n in attrs),
    eventAttributes: {},
    evidence,
  };
}

/** SNS's MessageAttributes ({ Type, Value }) as SQS attributes, so a redrive sends them with their type. */
function snsAttributes(v: unknown): Record<string, MessageAttributeValue> {
  const out: Record<string, MessageAttributeValue> = {};
  if (!isObject(v)) return out;
  for (const [name, a] of Object.entries(v)) {
    if (!isObject(a) || typeof a.Type !== 'string' || typeof a.Value !== 'string') continue;
    if (a.Type === 'Binary') out[name] = { DataType: 'Binary', BinaryValue: Buffer.from(a.Value, 'base64') };
    else if (a.Type === 'Number') out[name] = { DataType: 'Number', StringValue: a.Value };
    // String and String.Array (SQS has no arrays: the array's JSON text).
    else out[name] = { DataType: 'String', StringValue: a.Value };
  }
  return out;
}

/**
 * An SNS subscription's DLQ: the SNS notification JSON (Type "Notification", MessageId, TopicArn,
 * Message, Timestamp, signature fields), whose Message is the published text. With raw delivery the
 * body is the message itself and nothing marks it: only a source set to `sns` reads it so.
 */
function sns(body: string, strict: boolean): Unwrapped | string {
  if (!body.includes('"TopicArn"')) {
    if (strict) return 'the body is not an SNS notification';
    return raw(body);
  }
  const n = parseObject(body);
  const isNotification =
    n !== null &&
    n.Type === 'Notification' &&
    typeof n.MessageId === 'string' &&
    typeof n.TopicArn === 'string' &&
    n.TopicArn.startsWith('arn:') &&
    typeof n.Message === 'string' &&
    typeof n.Timestamp === 'string' &&
    (typeof n.Signature === 'string' || typeof n.SignatureVersion === 'string' || typeof n.UnsubscribeURL === 'string');
  if (!isNotification) return strict ? 'the body is not an SNS notification' : raw(body);
  const evidence: Record<string, unknown> = { type: 'sns' };
  for (const [k, v] of Object.entries(n)) if (k !== 'Message') evidence[k] = v;
  return {
    kind: 'sns',
    payload: Buffer.from(n.Message as string, 'utf8'),
    errorType: null,
    errorMessage: null,
    errorStack: null,
    attempts: null,
    consumer: arnName(n.TopicArn),
    failedAt: date(n.Timestamp),
    envelopeAttributes: [],
    eventAttributes: snsAttributes(n.MessageAttributes),
    evidence,
  };
}

/** Raw delivery: the body is the published message, its attributes the message's own. */
function raw(body: string): Unwrapped {
  return {
    kind: 'sns',
    payload: Buffer.from(body, 'utf8'),
    errorType: null,
    errorMessage: null,
    errorStack: null,
    attempts: null,
    consumer: null,
    failedAt: null,
    envelopeAttributes: [],
    eventAttributes: {},
    evidence: { type: 'sns', RawMessageDelivery: true },
  };
}

/**
 * The wrapper of one message, if it has one. `auto` tries each documented shape strictly and returns
 * null for anything else; a named setting returns why a message does not fit it.
 */
export function unwrapEnvelope(body: string, attrs: Attributes, setting: SqsEnvelopeSetting): Unwrapped | NotUnwrapped | null {
  if (setting === 'none') return null;
  if (setting === 'auto') {
    // The cheap tests first: a plain event has neither these keys nor these attributes.
    if (body.includes('requestPayload') && body.includes('"requestContext"')) {
      const l = lambdaDestination(body);
      if (typeof l !== 'string') return l;
    }
    if ('ErrorCode' in attrs && 'RequestID' in attrs) {
      const l = lambdaDlq(body, attrs, true);
      if (typeof l !== 'string') return l;
    }
    if ('RULE_ARN' in attrs && 'TARGET_ARN' in attrs) {
      const e = eventBridge(body, attrs, true);
      if (typeof e !== 'string') return e;
    }
    if (body.includes('"TopicArn"') && body.includes('"Notification"')) {
      const s = sns(body, true);
      if (typeof s !== 'string') return s;
    }
    return null;
  }
  const read =
    setting === 'lambda-destination'
      ? lambdaDestination(body)
      : setting === 'lambda-dlq'
        ? lambdaDlq(body, attrs, false)
        : setting === 'eventbridge'
          ? eventBridge(body, attrs, false)
          : sns(body, false);
  return typeof read === 'string' ? { kind: setting, problem: read } : read;
}
