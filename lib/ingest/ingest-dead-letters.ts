// The ingest API (POST /api/v1/sources/{source}/dead-letters[/raw]): how other teams' SQS, RabbitMQ,
// Kafka or Service Bus dead letters reach Triage. Idempotent on (source, messageId, generation), byte-exact,
// all-or-nothing per batch, with errors that name the item and field.
import type postgres from 'postgres';
import { AppError } from '@/lib/errors';
import { z } from 'zod';
import { RecordedDeadLetter, recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { ingestSql, unavailableIfTransient } from './ingest-sql';
import { ingestTarget, type IngestTarget } from './ingest-target';
import { toNewDeadLetter } from './ingest-item';
import { readCapped, readLines } from '@/lib/request-body';
import { TRIAGE_HEADERS } from '@/lib/queue/envelope';
import { writeBudget, type WriteBudget } from '@/lib/admission';
import { env } from '@/lib/env';

/** Whole batch body cap: a 10 MiB payload in base64 fits, and memory per request stays bounded. */
export const INGEST_MAX_BODY_BYTES = 32 * 1024 * 1024;
export const INGEST_MAX_BATCH = 10_000;

export const JSON_TYPE = 'application/json';
export const NDJSON_TYPE = 'application/x-ndjson';
const NDJSON_TYPES = new Set([NDJSON_TYPE, 'application/ndjson', 'application/jsonl', 'application/x-jsonlines']);

/** Headers of the raw endpoint, by the item field they stand for. */
export const RAW_HEADERS = {
  messageId: 'Triage-Message-Id',
  reason: 'Triage-Reason',
  'error.type': 'Triage-Error-Type',
  'error.message': 'Triage-Error-Message',
  receiveCount: 'Triage-Receive-Count',
  // The names a redrive sends (with Triage-Message-Id): a forwarder passes them through as they came.
  redriveCount: TRIAGE_HEADERS.redriveCount,
  generation: 'Triage-Generation',
  enqueuedAt: 'Triage-Enqueued-At',
  firstFailedAt: 'Triage-First-Failed-At',
  deadAt: 'Triage-Dead-At',
  key: 'Triage-Key',
  correlationId: 'Triage-Correlation-Id',
  consumer: 'Triage-Consumer',
  partition: 'Triage-Partition',
  offset: 'Triage-Offset',
  sensitive: 'Triage-Sensitive',
} as const;
/** `Triage-Header-<name>: value` carries the message's own header <name>. */
export const RAW_HEADER_PREFIX = 'triage-header-';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseJson(bytes: Uint8Array, where: string, details?: Record<string, unknown>): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError('bad_request', `${where} is not valid UTF-8`, details);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError('bad_request', `${where} is not valid JSON: ${(e as Error).message}`, details);
  }
}

function tooMany(): AppError {
  return new AppError('payload_too_large', `A batch holds at most ${INGEST_MAX_BATCH} dead letters`, { limit: INGEST_MAX_BATCH });
}

async function jsonBatch(req: Request, target: IngestTarget): Promise<NewDeadLetter[]> {
  const doc = parseJson(await readCapped(req, INGEST_MAX_BODY_BYTES, 'The batch'), 'The body');
  const list = doc !== null && typeof doc === 'object' ? (doc as { deadLetters?: unknown }).deadLetters : undefined;
  if (!Array.isArray(list)) throw new AppError('unprocessable', 'deadLetters: expected an array of dead letters', { field: 'deadLetters' });
  if (list.length > INGEST_MAX_BATCH) throw tooMany();
  return list.map((raw, i) => toNewDeadLetter(raw, i, target.payloadLimitBytes));
}

async function ndjsonBatch(req: Request, target: IngestTarget): Promise<NewDeadLetter[]> {
  const items: NewDeadLetter[] = [];
  for await (const { line, number } of readLines(req, INGEST_MAX_BODY_BYTES, 'The batch')) {
    if (line.every((b) => b === 0x20 || b === 0x09)) continue;
    const index = items.length;
    if (index >= INGEST_MAX_BATCH) throw tooMany();
    const raw = parseJson(line, `Line ${number} (deadLetters[${index}])`, { index, line: number });
    items.push(toNewDeadLetter(raw, index, target.payloadLimitBytes));
  }
  return items;
}

/** Ingest a batch (application/json `{ deadLetters: [...] }` or NDJSON, one dead letter a line). */
/** POST …/dead-letters: one answer per item, in order. */
export const IngestBatchAnswer = z.object({ items: z.array(RecordedDeadLetter) });
/** POST …/dead-letters/raw: the recorded dead letter, and the same as `items: [it]` so batch clients read it alike. */
export const IngestRawAnswer = RecordedDeadLetter.extend({ items: z.array(RecordedDeadLetter) });

/** How soon a forwarder refused for want of write budget should try again. */
export const BUDGET_RETRY_AFTER_SECONDS = 2;

interface IngestOptions {
  sql?: postgres.Sql;
  budget?: WriteBudget;
}

/**
 * Record under a share of the write budget, taken once the body is read and checked (a slow upload
 * holds no share). Spent for longer than WRITE_BUDGET_INGEST_WAIT_MS: 503 + Retry-After, nothing written.
 */
async function admitted<T>(opts: IngestOptions, write: () => Promise<T>): Promise<T> {
  const lease = await (opts.budget ?? writeBudget()).acquire('ingest', { maxWaitMs: env().WRITE_BUDGET_INGEST_WAIT_MS });
  if (!lease) {
    throw new AppError(
      'unavailable',
      `Triage is busy writing; retry in ${BUDGET_RETRY_AFTER_SECONDS} s (nothing of this batch was written, and it is idempotent)`,
      {
        reason: 'write_budget',
      },
      { 'Retry-After': String(BUDGET_RETRY_AFTER_SECONDS) },
    );
  }
  try {
    return await write();
  } finally {
    await lease.release();
  }
}

export async function ingestBatch(req: Request, sourceName: string, opts: IngestOptions = {}): Promise<RecordedDeadLetter[]> {
  const sql = opts.sql ?? ingestSql();
  try {
    const target = await ingestTarget(sql, sourceName, req.headers.get('authorization'));
    const type = mediaType(req.headers.get('content-type'));
    let items: NewDeadLetter[];
    if (type === JSON_TYPE) items = await jsonBatch(req, target);
    else if (NDJSON_TYPES.has(type)) items = await ndjsonBatch(req, target);
    else throw new AppError('unsupported_media_type', `Send ${JSON_TYPE} ({ "deadLetters": [...] }) or ${NDJSON_TYPE} (one dead letter a line)`);
    return await admitted(opts, () => recordDeadLetters(target, items, { sql }));
  } catch (e) {
    throw unavailableIfTransient(e);
  }
}

function rawItem(h: Headers): Record<string, unknown> {
  const get = (name: string) => h.get(name) ?? undefined;
  const int = (v: string | undefined) => (v !== undefined && /^\d{1,10}$/.test(v) ? Number(v) : v);
  const headers: Record<string, string> = {};
  h.forEach((value, name) => {
    if (name.startsWith(RAW_HEADER_PREFIX) && name.length > RAW_HEADER_PREFIX.length) headers[name.slice(RAW_HEADER_PREFIX.length)] = value;
  });
  const errorType = get(RAW_HEADERS['error.type']);
  const errorMessage = get(RAW_HEADERS['error.message']);
  const sensitive = get(RAW_HEADERS.sensitive);
  return {
    messageId: get(RAW_HEADERS.messageId),
    payload: '',
    headers,
    reason: get(RAW_HEADERS.reason),
    error: errorType !== undefined || errorMessage !== undefined ? { type: errorType, message: errorMessage } : undefined,
    receiveCount: int(get(RAW_HEADERS.receiveCount)),
    redriveCount: int(get(RAW_HEADERS.redriveCount)),
    generation: int(get(RAW_HEADERS.generation)),
    enqueuedAt: get(RAW_HEADERS.enqueuedAt),
    firstFailedAt: get(RAW_HEADERS.firstFailedAt),
    deadAt: get(RAW_HEADERS.deadAt),
    key: get(RAW_HEADERS.key),
    correlationId: get(RAW_HEADERS.correlationId),
    consumer: get(RAW_HEADERS.consumer),
    partition: int(get(RAW_HEADERS.partition)),
    offset: get(RAW_HEADERS.offset),
    sensitive: sensitive === undefined ? undefined : sensitive === 'true' ? true : sensitive === 'false' ? false : sensitive,
  };
}

/** Ingest one dead letter whose body is the payload itself, described by Triage-* headers. */
export async function ingestRaw(req: Request, sourceName: string, opts: IngestOptions = {}): Promise<RecordedDeadLetter> {
  const sql = opts.sql ?? ingestSql();
  try {
    const target = await ingestTarget(sql, sourceName, req.headers.get('authorization'));
    if (!req.headers.get(RAW_HEADERS.messageId)) {
      throw new AppError('bad_request', `The ${RAW_HEADERS.messageId} header is required`, { field: RAW_HEADERS.messageId });
    }
    let item: NewDeadLetter;
    try {
      item = toNewDeadLetter(rawItem(req.headers), 0, target.payloadLimitBytes);
    } catch (e) {
      const field = e instanceof AppError ? (e.details?.field as string | undefined) : undefined;
      const header = field ? ((RAW_HEADERS as Record<string, string>)[field] ?? (field.startsWith('headers') ? `${RAW_HEADER_PREFIX}*` : field)) : undefined;
      if (!header || !(e instanceof AppError)) throw e;
      throw new AppError(e.code, `${header}: ${e.message.replace(/^deadLetters\[0\]\.[^:]*: /, '')}`, { field: header });
    }
    const payload = await readCapped(req, target.payloadLimitBytes, `The payload (limit of source "${target.name}")`);
    const contentType = req.headers.get('content-type');
    const [recorded] = await admitted(opts, () => recordDeadLetters(target, [{ ...item, payload, contentType: contentType || null }], { sql }));
    return recorded!;
  } catch (e) {
    throw unavailableIfTransient(e);
  }
}
