// One dead letter as a forwarder sends it (the ingest contract, docs/design.md "What a dead letter
// carries"), validated and turned into the write path's NewDeadLetter. Errors name the item's index
// and field, so a forwarder can fix the one bad message in a batch of thousands.
import { z } from 'zod';
import { AppError } from '@/lib/errors';
import { DEAD_LETTER_REASONS, type NewDeadLetter } from '@/lib/model/dead-letter';

const INT32_MAX = 2_147_483_647;
const INT64_MAX = 9_223_372_036_854_775_807n;
const HEADER_MAX_DEPTH = 16;
/**
 * How far ahead of Triage's clock a deadAt may be: a sender's clock a little fast is normal, but
 * expiry and age count from deadAt, so a date far ahead would keep a dead letter past its retention.
 */
export const MAX_DEAD_AT_AHEAD_MS = 5 * 60_000;

// Postgres text and jsonb cannot hold NUL or an unpaired UTF-16 surrogate: refuse them rather than
// store something other than what was sent.
const storable = (s: string) => !s.includes('\u0000') && (s as unknown as { isWellFormed(): boolean }).isWellFormed();
const text = (max: number) => z.string().max(max).refine(storable, 'must not contain NUL or unpaired surrogates');
const timestamp = z.iso.datetime({ offset: true });

/** Header values: any JSON up to a modest depth (RabbitMQ's x-death is an array of objects). */
function headersProblem(headers: Record<string, unknown>): string | undefined {
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: headers, depth: 0, path: 'headers' }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (!storable(v)) return `${path} must not contain NUL or unpaired surrogates`;
    } else if (v !== null && typeof v === 'object') {
      if (depth >= HEADER_MAX_DEPTH) return `${path} is nested deeper than ${HEADER_MAX_DEPTH} levels`;
      for (const [k, child] of Object.entries(v)) {
        if (!storable(k)) return `${path} has a key with NUL or unpaired surrogates`;
        stack.push({ v: child, depth: depth + 1, path: Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}` });
      }
    }
  }
  return undefined;
}

export const ingestDeadLetterSchema = z
  .object({
    messageId: text(1024).min(1).describe('Unique within the source: the idempotency key of the ingest API'),
    payload: z.string().describe('The exact payload bytes, base64 (standard or URL-safe alphabet, padding optional)'),
    contentType: text(255).nullish().describe("The payload's own media type, e.g. application/json"),
    headers: z
      .record(z.string(), z.unknown())
      .nullish()
      .superRefine((h, ctx) => {
        const problem = h ? headersProblem(h) : undefined;
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .describe('The original message headers or attributes, untouched (JSON values, at most 16 levels deep)'),
    reason: z.enum(DEAD_LETTER_REASONS).nullish().describe('Why it was dead-lettered; default MaxReceives'),
    error: z
      .object({
        type: text(255).nullish(),
        message: z.string().nullish().describe('Kept up to 4,000 characters'),
        stack: z.string().nullish().describe('Kept up to 8,000 characters'),
      })
      .nullish(),
    receiveCount: z.int().min(0).max(INT32_MAX).nullish(),
    redriveCount: z
      .int()
      .min(0)
      .max(INT32_MAX)
      .nullish()
      .describe(
        'Times Triage redrove this message: the Triage-Redrive-Count a redrive sent it with (and messageId its Triage-Message-Id). A message that dies again after a redrive is that generation of the same messageId, not a duplicate; default 0',
      ),
    generation: z
      .int()
      .min(0)
      .max(INT32_MAX)
      .nullish()
      .describe('The generation of this death of messageId, when the sender counts them itself; default redriveCount. With both, they must agree'),
    enqueuedAt: timestamp.nullish().describe('Original enqueue time (ISO 8601 with offset)'),
    firstFailedAt: timestamp.nullish(),
    deadAt: timestamp.nullish().describe('When it was dead-lettered; default: now. At most 5 minutes ahead of the server clock (422 otherwise)'),
    key: text(1024).nullish().describe('Ordering or partition key'),
    correlationId: text(255).nullish(),
    consumer: z
      .union([text(255), z.object({ name: text(255), version: text(255).nullish() })])
      .nullish()
      .describe('The consumer that failed: a name, or { name, version }'),
    partition: z.int().min(0).max(INT32_MAX).nullish(),
    offset: z
      .union([
        z.int().min(0),
        z
          .string()
          .regex(/^\d{1,19}$/)
          .refine((v) => BigInt(v) <= INT64_MAX, 'must fit a signed 64-bit integer'),
      ])
      .nullish()
      .describe('Log offset; a decimal string for values past 2^53'),
    sensitive: z.boolean().nullish().describe('The whole payload is sensitive: masked until someone with payload.reveal reveals it'),
  })
  .describe('One dead letter to ingest');

export type IngestDeadLetter = z.input<typeof ingestDeadLetterSchema>;

export const ingestBatchSchema = z.object({ deadLetters: z.array(ingestDeadLetterSchema) });

/**
 * Strict base64: one alphabet, no whitespace, well-formed padding; null when it is not base64. Node's
 * decoder skips what is not base64 and stops at padding, so a decoded length short of what the
 * characters promise means a stray character: checking it costs nothing beside the decode itself
 * (a regex over the text cost more than the decoding).
 */
export function decodeBase64(s: string): Buffer | null {
  let end = s.length;
  if (end > 0 && s.charCodeAt(end - 1) === 61) end -= end > 1 && s.charCodeAt(end - 2) === 61 ? 2 : 1;
  if (end % 4 === 1 || (end !== s.length && s.length % 4 !== 0)) return null;
  if ((s.includes('-') || s.includes('_')) && (s.includes('+') || s.includes('/'))) return null;
  const bytes = Buffer.from(s, 'base64');
  return bytes.byteLength === Math.floor((end * 3) / 4) ? bytes : null;
}

export function itemError(index: number, field: string, message: string, code: 'unprocessable' | 'payload_too_large' = 'unprocessable') {
  return new AppError(code, `deadLetters[${index}].${field}: ${message}`, { index, field });
}

/** Validate one item and convert it for the write path; throws 422/413 naming the index and field. */
export function toNewDeadLetter(raw: unknown, index: number, payloadLimitBytes: number): NewDeadLetter {
  const parsed = ingestDeadLetterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : '(item)';
    throw itemError(index, field, issue.message);
  }
  const d = parsed.data;
  if (d.payload.length > Math.ceil(payloadLimitBytes / 3) * 4 + 4) {
    throw itemError(index, 'payload', `over the source's payload limit of ${payloadLimitBytes} bytes`, 'payload_too_large');
  }
  const payload = decodeBase64(d.payload);
  if (!payload) throw itemError(index, 'payload', 'not valid base64');
  if (payload.byteLength > payloadLimitBytes) {
    throw itemError(index, 'payload', `${payload.byteLength} bytes is over the source's payload limit of ${payloadLimitBytes} bytes`, 'payload_too_large');
  }
  if (d.deadAt && Date.parse(d.deadAt) > Date.now() + MAX_DEAD_AT_AHEAD_MS) {
    throw itemError(
      index,
      'deadAt',
      `${d.deadAt} is more than ${MAX_DEAD_AT_AHEAD_MS / 60_000} minutes in the future (is the sender's clock right?): expiry and age count from it`,
    );
  }
  if (d.generation != null && d.redriveCount != null && d.generation !== d.redriveCount) {
    throw itemError(
      index,
      'generation',
      `${d.generation} differs from redriveCount ${d.redriveCount}: a redriven message's next death is the generation of its redrive count`,
    );
  }
  const generation = d.generation ?? d.redriveCount ?? 0;
  const consumer = typeof d.consumer === 'string' ? { name: d.consumer, version: null } : d.consumer;
  const date = (s: string | null | undefined) => (s ? new Date(s) : null);
  return {
    messageId: d.messageId,
    // Idempotent on (messageId, generation): a forwarder's retry of one death is absorbed, the
    // death after a redrive is a new row, linked to the one redriven.
    generation,
    redriveCount: d.redriveCount ?? generation,
    payload,
    contentType: d.contentType ?? null,
    headers: d.headers ?? {},
    reason: d.reason ?? 'MaxReceives',
    errorType: d.error?.type ?? null,
    errorMessage: d.error?.message ?? null,
    errorStack: d.error?.stack ?? null,
    receiveCount: d.receiveCount ?? 0,
    enqueuedAt: date(d.enqueuedAt),
    firstFailedAt: date(d.firstFailedAt),
    deadAt: date(d.deadAt) ?? undefined,
    orderingKey: d.key ?? null,
    correlationId: d.correlationId ?? null,
    consumerName: consumer?.name ?? null,
    consumerVersion: consumer?.version ?? null,
    partition: d.partition ?? null,
    offset: d.offset == null ? null : BigInt(d.offset),
    sensitive: d.sensitive ?? false,
  };
}
