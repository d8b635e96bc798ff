// The one write path for new dead letters, shared by the broker runtime (write-then-delete) and the
// ingest API. Idempotent on (source, message id, generation): a retried write creates nothing new
// and says so. Each dead letter is fingerprinted and counted into its cluster in the same
// transaction, so cluster counts are kept, never recounted.
import { createHash } from 'node:crypto';
import type postgres from 'postgres';
import { fingerprint } from '@/lib/clustering';
import { sql as pg } from '@/lib/db';

export const DEAD_LETTER_REASONS = ['MaxReceives', 'Rejected', 'Expired', 'KeyParked', 'RedriveLoop', 'Manual'] as const;
export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

/** RabbitMQ x-death style: one entry per (reason, error), with a count. */
export interface FailureEntry {
  reason: string;
  errorType: string | null;
  errorMessage: string | null;
  count: number;
  firstAt: string;
  lastAt: string;
}

export interface NewDeadLetter {
  messageId: string;
  generation?: number;
  payload: Uint8Array;
  contentType?: string | null;
  headers?: Record<string, unknown>;
  reason: DeadLetterReason;
  errorType?: string | null;
  errorMessage?: string | null;
  errorStack?: string | null;
  receiveCount?: number;
  redriveCount?: number;
  enqueuedAt?: Date | null;
  firstFailedAt?: Date | null;
  lastFailedAt?: Date | null;
  deadAt?: Date;
  consumerName?: string | null;
  consumerVersion?: string | null;
  correlationId?: string | null;
  idempotencyKey?: string | null;
  orderingKey?: string | null;
  partition?: number | null;
  offset?: bigint | number | null;
  failureHistory?: FailureEntry[];
}

export interface SourcePolicy {
  id: string;
  retentionSeconds: number;
}

export interface RecordedDeadLetter {
  messageId: string;
  id: string;
  sha256: string;
  created: boolean;
}

export const MAX_STACK_CHARS = 8_000;
export const MAX_ERROR_MESSAGE_CHARS = 4_000;
const PAYLOAD_TEXT_CHARS = 4_096;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Searchable text of a payload: its first few KiB when valid UTF-8 (NUL is not storable in text). */
export function payloadText(payload: Uint8Array): string | null {
  try {
    return utf8.decode(payload.subarray(0, PAYLOAD_TEXT_CHARS * 4)).slice(0, PAYLOAD_TEXT_CHARS).replaceAll('\u0000', '');
  } catch {
    return null;
  }
}

export function sha256Hex(payload: Uint8Array): string {
  return createHash('sha256').update(payload).digest('hex');
}

const truncate = (s: string | null | undefined, n: number) => (s == null ? null : s.length > n ? s.slice(0, n) : s);
const noNul = (s: string | null) => (s == null ? null : s.replaceAll('\u0000', ''));

/** The stricter of the two retention clocks (dead-letter time and original enqueue time). */
export function expiryOf(deadAt: Date, enqueuedAt: Date | null | undefined, retentionSeconds: number): Date {
  const start = enqueuedAt && enqueuedAt < deadAt ? enqueuedAt : deadAt;
  return new Date(start.getTime() + retentionSeconds * 1000);
}

type Row = ReturnType<typeof toRow>;

function toRow(source: SourcePolicy, d: NewDeadLetter, now: Date) {
  const deadAt = d.deadAt ?? now;
  const errorMessage = noNul(truncate(d.errorMessage, MAX_ERROR_MESSAGE_CHARS));
  const errorStack = noNul(truncate(d.errorStack, MAX_STACK_CHARS));
  const errorType = noNul(d.errorType ?? null);
  const fp = fingerprint({ type: errorType ?? d.reason, message: errorMessage ?? '', stack: errorStack });
  const lastFailedAt = d.lastFailedAt ?? deadAt;
  return {
    source_id: source.id,
    message_id: d.messageId,
    generation: d.generation ?? 0,
    idempotency_key: d.idempotencyKey ?? null,
    ordering_key: d.orderingKey ?? null,
    reason: d.reason,
    error_type: errorType,
    error_message: errorMessage,
    error_stack: errorStack,
    receive_count: d.receiveCount ?? 0,
    redrive_count: d.redriveCount ?? 0,
    enqueued_at: d.enqueuedAt ?? null,
    first_failed_at: d.firstFailedAt ?? lastFailedAt,
    last_failed_at: lastFailedAt,
    dead_at: deadAt,
    consumer_name: d.consumerName ?? null,
    consumer_version: d.consumerVersion ?? null,
    correlation_id: d.correlationId ?? null,
    partition: d.partition ?? null,
    offset: d.offset == null ? null : BigInt(d.offset),
    payload: Buffer.from(d.payload.buffer, d.payload.byteOffset, d.payload.byteLength),
    payload_size: d.payload.byteLength,
    payload_sha256: sha256Hex(d.payload),
    content_type: d.contentType ?? null,
    payload_text: payloadText(d.payload),
    headers: d.headers ?? {},
    failure_history: d.failureHistory ?? [
      { reason: d.reason, errorType, errorMessage, count: 1, firstAt: lastFailedAt.toISOString(), lastAt: lastFailedAt.toISOString() },
    ],
    fingerprint: fp.key,
    cluster_id: null as string | null,
    status: 'open',
    expires_at: expiryOf(deadAt, d.enqueuedAt, source.retentionSeconds),
    // kept beside the row for the cluster upsert, not inserted
    _template: fp.template,
    _frame: fp.topFrame ? `${fp.topFrame.fn} (${fp.topFrame.file})` : null,
  };
}

const COLUMNS = [
  'source_id', 'message_id', 'generation', 'idempotency_key', 'ordering_key', 'reason', 'error_type', 'error_message',
  'error_stack', 'receive_count', 'redrive_count', 'enqueued_at', 'first_failed_at', 'last_failed_at', 'dead_at',
  'consumer_name', 'consumer_version', 'correlation_id', 'partition', 'offset', 'payload', 'payload_size',
  'payload_sha256', 'content_type', 'payload_text', 'headers', 'failure_history', 'fingerprint', 'cluster_id', 'status',
  'expires_at',
] as const;

/** Upsert the clusters of these rows and set each row's cluster_id (following merge aliases). */
async function assignClusters(tx: postgres.TransactionSql, rows: Row[]): Promise<void> {
  const byFp = new Map<string, Row>();
  for (const r of rows) if (!byFp.has(r.fingerprint)) byFp.set(r.fingerprint, r);
  const fresh = [...byFp.values()]
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1))
    .map((r) => ({
      fingerprint: r.fingerprint,
      template: r._template,
      error_type: r.error_type ?? r.reason,
      top_frame: r._frame,
      first_seen: r.dead_at,
      last_seen: r.dead_at,
    }));
  await tx`INSERT INTO clusters ${tx(fresh, 'fingerprint', 'template', 'error_type', 'top_frame', 'first_seen', 'last_seen')}
           ON CONFLICT (fingerprint) DO NOTHING`;
  const found = await tx<{ fingerprint: string; id: string; merged_into_id: string | null }[]>`
    SELECT fingerprint, id, merged_into_id FROM clusters WHERE fingerprint IN ${tx([...byFp.keys()])}`;
  const resolved = new Map(found.map((c) => [c.fingerprint, c.merged_into_id ?? c.id]));
  for (const r of rows) r.cluster_id = resolved.get(r.fingerprint) ?? null;
}

/** Count newly created dead letters into their clusters and per-source splits. */
async function countIntoClusters(tx: postgres.TransactionSql, created: Row[]): Promise<void> {
  const agg = new Map<string, { cluster_id: string; source_id: string; n: number; first: Date; last: Date }>();
  for (const r of created) {
    if (!r.cluster_id) continue;
    const k = `${r.cluster_id}|${r.source_id}`;
    const a = agg.get(k);
    if (a) {
      a.n++;
      if (r.dead_at < a.first) a.first = r.dead_at;
      if (r.dead_at > a.last) a.last = r.dead_at;
    } else agg.set(k, { cluster_id: r.cluster_id, source_id: r.source_id, n: 1, first: r.dead_at, last: r.dead_at });
  }
  // A fixed lock order (by cluster id) keeps concurrent batches from deadlocking.
  const groups = [...agg.values()].sort((a, b) => (a.cluster_id + a.source_id < b.cluster_id + b.source_id ? -1 : 1));
  for (const g of groups) {
    await tx`UPDATE clusters SET count = count + ${g.n}, open_count = open_count + ${g.n},
               first_seen = LEAST(first_seen, ${g.first}), last_seen = GREATEST(last_seen, ${g.last})
             WHERE id = ${g.cluster_id}`;
    await tx`INSERT INTO cluster_sources (cluster_id, source_id, count, open_count, first_seen, last_seen)
             VALUES (${g.cluster_id}, ${g.source_id}, ${g.n}, ${g.n}, ${g.first}, ${g.last})
             ON CONFLICT (cluster_id, source_id) DO UPDATE SET count = cluster_sources.count + EXCLUDED.count,
               open_count = cluster_sources.open_count + EXCLUDED.open_count,
               first_seen = LEAST(cluster_sources.first_seen, EXCLUDED.first_seen),
               last_seen = GREATEST(cluster_sources.last_seen, EXCLUDED.last_seen)`;
  }
}

/**
 * Record dead letters of one source, all or nothing, in the order given. Returns, per input, the
 * stored id and SHA-256 and whether this call created it (false: it was already there).
 */
export async function recordDeadLetters(
  source: SourcePolicy,
  deadLetters: NewDeadLetter[],
  opts: { sql?: postgres.Sql; now?: Date } = {},
): Promise<RecordedDeadLetter[]> {
  if (deadLetters.length === 0) return [];
  const now = opts.now ?? new Date();
  const rows = deadLetters.map((d) => toRow(source, d, now));
  const sql = opts.sql ?? pg();
  return sql.begin(async (tx) => {
    await assignClusters(tx, rows);
    const inserted: { id: bigint; message_id: string; generation: number }[] = [];
    // Stay well under Postgres's 65,535 bind parameters per statement.
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      inserted.push(
        ...(await tx<{ id: bigint; message_id: string; generation: number }[]>`
          INSERT INTO dead_letters ${tx(chunk as never[], ...COLUMNS)}
          ON CONFLICT (source_id, message_id, generation) DO NOTHING
          RETURNING id, message_id, generation`),
      );
    }
    const key = (m: string, g: number) => `${g}|${m}`;
    const createdIds = new Map(inserted.map((r) => [key(r.message_id, r.generation), r.id]));
    const missing = rows.filter((r) => !createdIds.has(key(r.message_id, r.generation)));
    const existing = new Map<string, { id: bigint; sha: string }>();
    if (missing.length) {
      const found = await tx<{ id: bigint; message_id: string; generation: number; payload_sha256: string }[]>`
        SELECT d.id, d.message_id, d.generation, d.payload_sha256 FROM dead_letters d
        JOIN unnest(${tx.array(missing.map((r) => r.message_id))}::text[], ${tx.array(missing.map((r) => r.generation))}::int[]) AS k(message_id, generation)
          ON d.message_id = k.message_id AND d.generation = k.generation
        WHERE d.source_id = ${source.id}`;
      for (const f of found) existing.set(key(f.message_id, f.generation), { id: f.id, sha: f.payload_sha256 });
    }
    // The same message id twice in one batch: the first occurrence creates it.
    const seen = new Set<string>();
    const created: Row[] = [];
    const result = rows.map((r) => {
      const k = key(r.message_id, r.generation);
      const id = createdIds.get(k);
      if (id !== undefined && !seen.has(k)) {
        seen.add(k);
        created.push(r);
        return { messageId: r.message_id, id: id.toString(), sha256: r.payload_sha256, created: true };
      }
      const e = existing.get(k);
      return { messageId: r.message_id, id: (id ?? e?.id ?? 0n).toString(), sha256: e?.sha ?? r.payload_sha256, created: false };
    });
    await countIntoClusters(tx, created);
    return result;
  });
}
