// The one write path for new dead letters, shared by the broker runtime (write-then-delete) and the
// ingest API. Idempotent on (source, message id, generation): a retried write creates nothing new
// and says so. Each dead letter is fingerprinted and counted into its cluster in the same
// transaction, so cluster counts are kept, never recounted. Searchable text is not written here:
// the new ids are queued for the search indexer (lib/search), which indexes them in bulk.
//
// dead_letters is partitioned by dead_at, so it cannot hold a unique (source, message id,
// generation) index. The key lives in the unpartitioned dead_letter_keys, claimed first in the same
// transaction: one INSERT … ON CONFLICT DO NOTHING takes an id for every key not stored yet and
// says which; only those rows are written to dead_letters (small writes one multi-row INSERT,
// batches a binary COPY). A key another transaction is writing right now is waited for by the
// INSERT, so the lookup after it sees the other's row: no retries, whatever the wall-clock time of
// the retry (its fresh dead_at never matters). Keys are claimed in (message id, generation) order,
// so two batches with overlapping keys wait on each other in one order and never deadlock.
import { hash } from 'node:crypto';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type postgres from 'postgres';
import { classifyError, fingerprintCache, type Fingerprint } from '@/lib/clustering';
import { applyGrouping, groupingOf, NO_GROUPING, type RuledFingerprint, type SourceGrouping } from '@/lib/clustering/grouping-rules';
import { postgresQuery } from '@/lib/clustering/absorb-clusters';
import { lockClustersFollowingMerges } from '@/lib/clustering/follow-merges';
import { mergeNewClusters } from '@/lib/clustering/merge-new-clusters';
import { lazySubject, routeThroughSplits, splitRoutesOf, type SplitNode } from '@/lib/clustering/split-routes';
import { pg } from '@/lib/db';
import { noteErrorTypes, rememberErrorTypes } from './error-types';
import { reopenRegressions } from '@/lib/ownership/regressions';
import { binaryCopyChunks, type CopyColumn, type CopyType } from '@/lib/db/copy-binary';
import { payloadVerdict, sensitivePathsOf, textVerdict } from '@/lib/masking';

import { MAX_ERROR_MESSAGE_CHARS, MAX_STACK_CHARS, type NewDeadLetter, type RecordedDeadLetter } from '@/lib/model/dead-letter';

export {
  DEAD_LETTER_REASONS,
  FailureEntry,
  MAX_ERROR_MESSAGE_CHARS,
  MAX_STACK_CHARS,
  RecordedDeadLetter,
  type DeadLetterReason,
  type NewDeadLetter,
} from '@/lib/model/dead-letter';

export interface SourcePolicy {
  id: string;
  retentionSeconds: number;
  /** The source's grouping rules, when the caller read them with the source; else the write path reads them. */
  grouping?: SourceGrouping;
}

/** From this many rows on, COPY through the temp table beats one multi-row INSERT. */
const COPY_THRESHOLD = 64;

export function sha256Hex(payload: Uint8Array): string {
  // One-shot crypto.hash: a third cheaper than createHash() for kilobyte payloads.
  return hash('sha256', payload, 'hex');
}

// Postgres text and jsonb refuse NUL and lone UTF-16 surrogates; metadata is cleaned, never refused,
// because the runtime must be able to park anything (the ingest API refuses such input up front).
const wellFormed = (s: string) => {
  const w = s as unknown as { isWellFormed(): boolean; toWellFormed(): string };
  return w.isWellFormed() ? s : w.toWellFormed();
};
const clean = (s: string | null | undefined) => (s == null ? null : wellFormed(s.includes('\u0000') ? s.replaceAll('\u0000', '') : s));
/** JSON text Postgres accepts: stringified once; only text with a NUL or lone-surrogate escape is redone, cleaned. */
function cleanJsonText(v: unknown): string {
  const text = JSON.stringify(v);
  return text.includes('\\u') && (text.includes('\\u0000') || /\\ud[89a-f]/i.test(text)) ? JSON.stringify(v, cleanJson) : text;
}
const truncate = (s: string | null | undefined, n: number) => (s == null ? null : s.length > n ? s.slice(0, n) : s);
const cleanJson = (_k: string, v: unknown) => (typeof v === 'string' ? clean(v) : v);

/** The stricter of the two retention clocks (dead-letter time and original enqueue time). */
export function expiryOf(deadAt: Date, enqueuedAt: Date | null | undefined, retentionSeconds: number): Date {
  const start = enqueuedAt && enqueuedAt < deadAt ? enqueuedAt : deadAt;
  return new Date(start.getTime() + retentionSeconds * 1000);
}

type Row = ReturnType<typeof toRow>;

/**
 * The ruled key of each fingerprint of this call, when it depends on the error alone (no group-by
 * rule). fingerprintCache hands out one Fingerprint object per (type, template, stack), so a batch
 * whose messages differ only in their variable parts applies the rules (and hashes the shape) once.
 * One call reads one version of the rules, so no key made under another version is reused.
 */
type RuledMemo = Map<Fingerprint, RuledFingerprint>;

function toRow(
  source: SourcePolicy,
  d: NewDeadLetter,
  now: Date,
  ruledOf: RuledMemo,
  fingerprintOf: (error: { type: string; message: string; stack: string | null }) => Fingerprint,
  grouping: SourceGrouping,
  paths: string[],
) {
  const deadAt = d.deadAt ?? now;
  const errorMessage = clean(truncate(d.errorMessage, MAX_ERROR_MESSAGE_CHARS));
  const errorStack = clean(truncate(d.errorStack, MAX_STACK_CHARS));
  const errorType = clean(d.errorType);
  // A batch usually repeats a handful of causes: fingerprintCache masks each distinct error once.
  const fpType = errorType ?? d.reason;
  const fp = fingerprintOf({ type: fpType, message: errorMessage ?? '', stack: errorStack });
  // A group-by rule reads each dead letter's payload or headers; other rules depend on the error alone.
  let ruled = ruledOf.get(fp);
  if (!ruled) {
    ruled = applyGrouping(fp, fpType, grouping, d);
    if (!grouping.rules?.groupBy.length) ruledOf.set(fp, ruled);
  }
  const lastFailedAt = d.lastFailedAt ?? deadAt;
  const failedAt = d.failureHistory ? '' : lastFailedAt.toISOString();
  // JSON text, serialized once: COPY writes it as it is, the small path casts it.
  const headers = cleanJsonText(d.headers ?? {});
  const failureHistory = cleanJsonText(d.failureHistory ?? [{ reason: d.reason, errorType, errorMessage, count: 1, firstAt: failedAt, lastAt: failedAt }]);
  return {
    source_id: source.id,
    message_id: wellFormed(d.messageId),
    generation: d.generation ?? 0,
    idempotency_key: clean(d.idempotencyKey),
    ordering_key: clean(d.orderingKey),
    reason: d.reason,
    error_type: errorType,
    error_message: errorMessage,
    error_stack: errorStack,
    // Transient, permanent or unknown, decided once here for the alarms, the inbox and the redrive page.
    error_class: classifyError({ type: errorType, message: errorMessage, reason: d.reason }).class,
    receive_count: d.receiveCount ?? 0,
    redrive_count: d.redriveCount ?? 0,
    enqueued_at: d.enqueuedAt ?? null,
    first_failed_at: d.firstFailedAt ?? lastFailedAt,
    last_failed_at: lastFailedAt,
    dead_at: deadAt,
    consumer_name: clean(d.consumerName),
    consumer_version: clean(d.consumerVersion),
    correlation_id: clean(d.correlationId),
    partition: d.partition ?? null,
    offset: d.offset == null ? null : BigInt(d.offset),
    // A Buffer already (amqplib's content, the ingest body): the same bytes without another view.
    payload: Buffer.isBuffer(d.payload) ? d.payload : Buffer.from(d.payload.buffer, d.payload.byteOffset, d.payload.byteLength),
    payload_size: d.payload.byteLength,
    payload_sha256: sha256Hex(d.payload),
    content_type: clean(d.contentType),
    headers,
    failure_history: failureHistory,
    fingerprint: ruled.key,
    cluster_id: null as string | null,
    status: 'open',
    // Never from a time ahead of now: a broker's clock that runs fast (connectors keep its deadAt,
    // which the BullMQ connector tells generations apart by) must not extend retention.
    expires_at: expiryOf(deadAt < now ? deadAt : now, d.enqueuedAt, source.retentionSeconds),
    sensitive: d.sensitive ?? false,
    // The masking verdicts, decided once here (lib/masking/verdict.ts) for every reader.
    payload_masked: payloadVerdict(d.payload, { sensitive: d.sensitive ?? false, paths }),
    text_masked: textVerdict([headers, errorMessage, errorStack, failureHistory]),
    // kept beside the row for the cluster upsert, not inserted
    _template: ruled.template,
    _frame: ruled.frame,
    _shape: ruled.shape,
    _groupedBy: ruled.groupedBy,
  };
}

const COLUMNS = [
  'source_id',
  'message_id',
  'generation',
  'idempotency_key',
  'ordering_key',
  'reason',
  'error_type',
  'error_message',
  'error_stack',
  'error_class',
  'receive_count',
  'redrive_count',
  'enqueued_at',
  'first_failed_at',
  'last_failed_at',
  'dead_at',
  'consumer_name',
  'consumer_version',
  'correlation_id',
  'partition',
  'offset',
  'payload',
  'payload_size',
  'payload_sha256',
  'content_type',
  'headers',
  'failure_history',
  'fingerprint',
  'cluster_id',
  'status',
  'expires_at',
  'sensitive',
  'payload_masked',
  'text_masked',
] as const satisfies readonly (keyof Row)[];

type Column = (typeof COLUMNS)[number];
const COPY_TYPES: Record<Column, CopyType> = {
  source_id: 'uuid',
  message_id: 'text',
  generation: 'int4',
  idempotency_key: 'text',
  ordering_key: 'text',
  reason: 'enum',
  error_type: 'text',
  error_message: 'text',
  error_stack: 'text',
  error_class: 'enum',
  receive_count: 'int4',
  redrive_count: 'int4',
  enqueued_at: 'timestamptz',
  first_failed_at: 'timestamptz',
  last_failed_at: 'timestamptz',
  dead_at: 'timestamptz',
  consumer_name: 'text',
  consumer_version: 'text',
  correlation_id: 'text',
  partition: 'int4',
  offset: 'int8',
  payload: 'bytea',
  payload_size: 'int4',
  payload_sha256: 'text',
  content_type: 'text',
  headers: 'jsontext',
  failure_history: 'jsontext',
  fingerprint: 'text',
  cluster_id: 'uuid',
  status: 'enum',
  expires_at: 'timestamptz',
  sensitive: 'bool',
  payload_masked: 'bool',
  text_masked: 'bool',
};
type IdRow = { id: bigint; row: Row };
// One getter per column, each reading a fixed property: a shared `(r) => r.row[c]` would be one
// megamorphic keyed load per field of every row.
const GETTERS: { [C in Column]: (r: IdRow) => Row[C] } = {
  source_id: (r) => r.row.source_id,
  message_id: (r) => r.row.message_id,
  generation: (r) => r.row.generation,
  idempotency_key: (r) => r.row.idempotency_key,
  ordering_key: (r) => r.row.ordering_key,
  reason: (r) => r.row.reason,
  error_type: (r) => r.row.error_type,
  error_message: (r) => r.row.error_message,
  error_stack: (r) => r.row.error_stack,
  error_class: (r) => r.row.error_class,
  receive_count: (r) => r.row.receive_count,
  redrive_count: (r) => r.row.redrive_count,
  enqueued_at: (r) => r.row.enqueued_at,
  first_failed_at: (r) => r.row.first_failed_at,
  last_failed_at: (r) => r.row.last_failed_at,
  dead_at: (r) => r.row.dead_at,
  consumer_name: (r) => r.row.consumer_name,
  consumer_version: (r) => r.row.consumer_version,
  correlation_id: (r) => r.row.correlation_id,
  partition: (r) => r.row.partition,
  offset: (r) => r.row.offset,
  payload: (r) => r.row.payload,
  payload_size: (r) => r.row.payload_size,
  payload_sha256: (r) => r.row.payload_sha256,
  content_type: (r) => r.row.content_type,
  headers: (r) => r.row.headers,
  failure_history: (r) => r.row.failure_history,
  fingerprint: (r) => r.row.fingerprint,
  cluster_id: (r) => r.row.cluster_id,
  status: (r) => r.row.status,
  expires_at: (r) => r.row.expires_at,
  sensitive: (r) => r.row.sensitive,
  payload_masked: (r) => r.row.payload_masked,
  text_masked: (r) => r.row.text_masked,
};
const COPY_COLUMNS: CopyColumn<IdRow>[] = [
  { name: 'id', type: 'int8', get: (r) => r.id },
  ...COLUMNS.map((c): CopyColumn<IdRow> => ({ name: c, type: COPY_TYPES[c], get: GETTERS[c] })),
];
const COPY_DEAD_LETTERS = `COPY dead_letters (${COPY_COLUMNS.map((c) => `"${c.name}"`).join(', ')}) FROM STDIN WITH (FORMAT binary)`;

type Inserted = { id: bigint; message_id: string; generation: number };

/**
 * COPY FROM STDIN that always settles. postgres.js 3.4 never settles the stream of a COPY the server
 * fails after the data has ended (a constraint violation found at the last row, say); a query queued
 * behind it does settle, and fails when the COPY did (the transaction is aborted).
 */
async function copyIn(tx: postgres.TransactionSql, statement: string, chunks: Iterable<Buffer>): Promise<void> {
  const stream = await tx.unsafe(statement).writable();
  const done = finished(stream);
  done.catch(() => {}); // settled below, or superseded by the probe's error
  for (const chunk of chunks) if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), done]);
  stream.end();
  // end() runs the stream's final (which sends CopyDone and frees the connection) on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  await tx`SELECT 1`;
  await done;
}

/**
 * Claim the keys of these rows (distinct keys, sorted) in dead_letter_keys: the ones not stored yet
 * get an id from the sequence; returns those. The session setting tells the key table's triggers on
 * dead_letters that this transaction writes the keys itself.
 */
async function claimKeys(tx: postgres.TransactionSql, sourceId: string, rows: Row[]): Promise<Inserted[]> {
  if (rows.length === 0) return [];
  const [, claimed] = await Promise.all([
    tx`SELECT set_config('triage.keys_written', 'on', true)`,
    tx<Inserted[]>`
      INSERT INTO dead_letter_keys (id, source_id, message_id, generation, dead_at, payload_sha256)
      SELECT nextval('dead_letters_id_seq'), ${sourceId}::uuid, v.message_id, v.generation, v.dead_at, v.sha
      FROM unnest(${rows.map((r) => r.message_id)}::text[], ${rows.map((r) => r.generation)}::int[],
                  ${rows.map((r) => r.dead_at.toISOString())}::timestamptz[], ${rows.map((r) => r.payload_sha256)}::text[])
           WITH ORDINALITY AS v(message_id, generation, dead_at, sha, ord)
      ORDER BY v.ord
      ON CONFLICT (source_id, message_id, generation) DO NOTHING
      RETURNING id, message_id, generation`,
  ]);
  return claimed;
}

/** Insert the rows whose keys this transaction claimed, with the ids claimed for them. */
async function insertRows(tx: postgres.TransactionSql, rows: Row[], ids: bigint[]): Promise<void> {
  if (rows.length === 0) return;
  const withIds = rows.map((row, i) => ({ id: ids[i]!, row }));
  if (rows.length >= COPY_THRESHOLD) {
    await copyIn(tx, COPY_DEAD_LETTERS, binaryCopyChunks(COPY_COLUMNS, withIds));
    return;
  }
  // postgres.js serializes jsonb parameters itself, so they go as values, not as JSON text.
  const values = withIds.map(({ id, row: r }) => ({
    ...r,
    id,
    headers: JSON.parse(r.headers) as unknown,
    failure_history: JSON.parse(r.failure_history) as unknown,
  }));
  // Stay well under Postgres's 65,535 bind parameters per INSERT.
  for (let i = 0; i < rows.length; i += 1000) {
    await tx`INSERT INTO dead_letters ${tx(values.slice(i, i + 1000) as unknown as Record<string, postgres.ParameterOrJSON<never>>[], 'id', ...COLUMNS)}`;
  }
}

/** Upsert the clusters of these rows and set each row's cluster_id (following merge aliases and splits). */
async function assignClusters(tx: postgres.TransactionSql, rows: Row[]): Promise<void> {
  const byFp = new Map<string, Row>();
  for (const r of rows) if (!byFp.has(r.fingerprint)) byFp.set(r.fingerprint, r);
  // Sorted: concurrent batches take the unique-index locks of new clusters in the same order.
  const fresh = [...byFp.values()]
    .sort((a, b) => (a.fingerprint < b.fingerprint ? -1 : 1))
    .map((r) => ({
      fingerprint: r.fingerprint,
      template: r._template,
      error_type: r.error_type ?? r.reason,
      top_frame: r._frame,
      shape: r._shape,
      grouped_by: r._groupedBy,
      error_class: r.error_class,
      first_seen: r.dead_at,
      last_seen: r.dead_at,
    }));
  // `split`: the cluster arrivals count into was split by a person (a rare join hit, no extra round trip).
  const lookup = () => tx<{ fingerprint: string; id: string; merged_into_id: string | null; split: boolean }[]>`
    SELECT c.fingerprint, c.id, c.merged_into_id, t.split_by IS NOT NULL AS split
    FROM clusters c LEFT JOIN clusters t ON t.id = coalesce(c.merged_into_id, c.id)
    WHERE c.fingerprint IN ${tx([...byFp.keys()])}`;
  // The lookup is sent with the upsert (one round trip: it runs after it, and sees what it inserted).
  const [inserted, looked] = await Promise.all([
    tx`
    INSERT INTO clusters ${tx(fresh, 'fingerprint', 'template', 'error_type', 'top_frame', 'shape', 'grouped_by', 'error_class', 'first_seen', 'last_seen')}
    ON CONFLICT (fingerprint) DO NOTHING RETURNING id, template, shape, top_frame`,
    lookup(),
  ]);
  const created = inserted as unknown as { id: string; template: string; shape: string; top_frame: string | null }[];
  // New fingerprints are rare: only then does the second stage look for kin to merge with, and the
  // lookup is read again after it (a merge re-points new clusters).
  let found = looked;
  if (created.length) {
    await mergeNewClusters(postgresQuery(tx), [...created]);
    found = await lookup();
  }
  const resolved = new Map(found.map((c) => [c.fingerprint, c.merged_into_id ?? c.id]));
  for (const r of rows) r.cluster_id = resolved.get(r.fingerprint) ?? null;
  const split = found.filter((c) => c.split).map((c) => c.merged_into_id ?? c.id);
  if (split.length) await routeSplitArrivals(tx, rows, split);
}

/**
 * A split stays split for new arrivals: rows counted into a cluster a person split go to the part
 * of their value (lib/clustering/split-routes.ts). One query reads the splits of these clusters,
 * their parts, parts split again and where merged parts went; only these rows are read for the
 * split's field (a payload parsed only for a split by a payload path).
 */
async function routeSplitArrivals(tx: postgres.TransactionSql, rows: Row[], split: string[]): Promise<void> {
  const found = await tx<{ id: string; split_by: unknown; merged_into_id: string | null }[]>`
    WITH RECURSIVE tree AS (
      SELECT id, merged_into_id FROM clusters WHERE id = ANY(${[...new Set(split)]}::uuid[])
      UNION
      SELECT n.id, n.merged_into_id FROM tree t CROSS JOIN LATERAL (
        SELECT id, merged_into_id FROM clusters WHERE split_from_id = t.id
        UNION ALL SELECT id, merged_into_id FROM clusters WHERE id = t.merged_into_id) n
    )
    SELECT t.id::text, c.split_by, t.merged_into_id::text FROM tree t JOIN clusters c ON c.id = t.id`;
  const nodes = new Map<string, SplitNode>(found.map((c) => [c.id, { routes: splitRoutesOf(c.split_by), mergedInto: c.merged_into_id }]));
  const roots = new Set(split);
  for (const r of rows) if (r.cluster_id && roots.has(r.cluster_id)) r.cluster_id = routeThroughSplits(r.cluster_id, nodes, lazySubject(r));
}

/** Count newly created dead letters into their clusters, per-source splits and hours: four statements, two round trips, per batch. */
async function countIntoClusters(tx: postgres.TransactionSql, created: Row[]): Promise<void> {
  // A fixed lock order (by cluster id) keeps concurrent batches, and closeDeadLetters, from deadlocking;
  // a merge that committed since assignClusters is followed here.
  await lockClustersFollowingMerges(tx, created);
  const agg = new Map<string, { cluster_id: string; source_id: string; n: number; first: Date; last: Date; cls: Row['error_class'] }>();
  for (const r of created) {
    if (!r.cluster_id) continue;
    const k = `${r.cluster_id}|${r.source_id}`;
    const a = agg.get(k);
    if (a) {
      a.n++;
      if (r.dead_at < a.first) a.first = r.dead_at;
      if (r.dead_at >= a.last) {
        a.last = r.dead_at;
        a.cls = r.error_class;
      }
    } else agg.set(k, { cluster_id: r.cluster_id, source_id: r.source_id, n: 1, first: r.dead_at, last: r.dead_at, cls: r.error_class });
  }
  if (agg.size === 0) return;
  const hours = new Map<string, { cluster_id: string; source_id: string; hour: number; n: number }>();
  for (const r of created) {
    if (!r.cluster_id) continue;
    const hour = Math.floor(r.dead_at.getTime() / 3_600_000) * 3_600_000;
    const k = `${r.cluster_id}|${r.source_id}|${hour}`;
    const h = hours.get(k);
    if (h) h.n++;
    else hours.set(k, { cluster_id: r.cluster_id, source_id: r.source_id, hour, n: 1 });
  }
  const groups = [...agg.values()].sort((a, b) => (a.cluster_id + a.source_id < b.cluster_id + b.source_id ? -1 : 1));
  const perCluster = new Map<string, { n: number; first: Date; last: Date; cls: Row['error_class'] }>();
  for (const g of groups) {
    const c = perCluster.get(g.cluster_id);
    if (!c) perCluster.set(g.cluster_id, { n: g.n, first: g.first, last: g.last, cls: g.cls });
    else {
      c.n += g.n;
      if (g.first < c.first) c.first = g.first;
      if (g.last > c.last) {
        c.last = g.last;
        c.cls = g.cls;
      }
    }
  }
  const clusterIds = [...perCluster.keys()];
  const clusters = [...perCluster.values()];
  // Sorted (the same lock order for concurrent batches); hours stay numbers until here.
  const perHour = [...hours.values()].sort((a, b) =>
    a.cluster_id !== b.cluster_id
      ? a.cluster_id < b.cluster_id
        ? -1
        : 1
      : a.source_id !== b.source_id
        ? a.source_id < b.source_id
          ? -1
          : 1
        : a.hour - b.hour,
  );
  // Three independent statements under the locks taken above: sent together, one round trip.
  await Promise.all([
    // A cluster takes the class of its latest arrival: an import of older history does not change it.
    tx`UPDATE clusters c SET count = c.count + v.n, open_count = c.open_count + v.n,
             first_seen = LEAST(c.first_seen, v.first), last_seen = GREATEST(c.last_seen, v.last),
             error_class = CASE WHEN v.last >= c.last_seen THEN v.cls ELSE c.error_class END
           FROM unnest(${clusterIds}::uuid[], ${clusters.map((c) => c.n)}::int[],
                       ${clusters.map((c) => c.first.toISOString())}::timestamptz[], ${clusters.map((c) => c.last.toISOString())}::timestamptz[],
                       ${clusters.map((c) => c.cls)}::"ErrorClass"[])
                AS v(id, n, first, last, cls)
           WHERE c.id = v.id`,
    tx`INSERT INTO cluster_sources (cluster_id, source_id, count, open_count, first_seen, last_seen)
           SELECT v.cluster_id, v.source_id, v.n, v.n, v.first, v.last
           FROM unnest(${groups.map((g) => g.cluster_id)}::uuid[], ${groups.map((g) => g.source_id)}::uuid[], ${groups.map((g) => g.n)}::int[],
                       ${groups.map((g) => g.first.toISOString())}::timestamptz[], ${groups.map((g) => g.last.toISOString())}::timestamptz[])
                AS v(cluster_id, source_id, n, first, last)
           ORDER BY v.cluster_id, v.source_id
           ON CONFLICT (cluster_id, source_id) DO UPDATE SET count = cluster_sources.count + EXCLUDED.count,
             open_count = cluster_sources.open_count + EXCLUDED.open_count,
             first_seen = LEAST(cluster_sources.first_seen, EXCLUDED.first_seen),
             last_seen = GREATEST(cluster_sources.last_seen, EXCLUDED.last_seen)`,
    tx`INSERT INTO cluster_hours (cluster_id, source_id, hour, count)
           SELECT * FROM unnest(${perHour.map((h) => h.cluster_id)}::uuid[], ${perHour.map((h) => h.source_id)}::uuid[],
                                ${perHour.map((h) => new Date(h.hour).toISOString())}::timestamptz[], ${perHour.map((h) => h.n)}::int[])
           ON CONFLICT (cluster_id, source_id, hour) DO UPDATE SET count = cluster_hours.count + EXCLUDED.count`,
  ]);
}

type Existing = Map<string, { id: bigint; sha: string }>;
const keyOf = (m: string, g: number) => `${g}|${m}`;

/** Which of these keys are already stored, with their ids and SHA-256 (from the key table, which outlives a dropped partition). */
async function lookupExisting(tx: postgres.TransactionSql, sourceId: string, rows: Row[]): Promise<Existing> {
  const existing: Existing = new Map();
  if (rows.length === 0) return existing;
  const wanted = new Set(rows.map((r) => keyOf(r.message_id, r.generation)));
  // Planned afresh for each batch (an unnamed statement): `message_id = ANY(…)` walks the unique key index once per id.
  const found = await tx.unsafe<{ id: bigint; message_id: string; generation: number; payload_sha256: string }[]>(
    'SELECT id, message_id, generation, payload_sha256 FROM dead_letter_keys WHERE source_id = $1 AND message_id = ANY($2::text[])',
    [sourceId, tx.array([...new Set(rows.map((r) => r.message_id))])],
    { prepare: false },
  );
  for (const f of found) {
    const k = keyOf(f.message_id, f.generation);
    if (wanted.has(k)) existing.set(k, { id: f.id, sha: f.payload_sha256 });
  }
  return existing;
}

/** Queue new dead letters for the search indexer and wake it (lib/search). */
async function queueForSearch(tx: postgres.TransactionSql, ids: bigint[]): Promise<void> {
  if (ids.length === 0) return;
  await tx`WITH queued AS (INSERT INTO search_backlog (dead_letter_id) SELECT unnest(${ids.map(String)}::bigint[]))
           SELECT pg_notify('search_backlog', '')`;
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
  const fingerprintOf = fingerprintCache();
  const sql = opts.sql ?? pg();
  // Read per call, not cached: a change of the paths applies to the next write (and the recompute
  // job, lib/masking/recompute-verdicts.ts, revisits what was written before it); the grouping rules
  // come in the same read unless the caller read them with the source (the ingest API).
  const [policy] = await sql<{ sensitive_paths: unknown; grouping_rules: unknown; grouping_version: number }[]>`
    SELECT sensitive_paths, grouping_rules, grouping_version FROM sources WHERE id = ${source.id}::uuid`;
  const paths = sensitivePathsOf(policy?.sensitive_paths);
  const grouping = { ...(source.grouping ?? (policy ? groupingOf(policy.grouping_rules, policy.grouping_version) : NO_GROUPING)), sensitivePaths: paths };
  const ruledOf: RuledMemo = new Map();
  const rows = deadLetters.map((d) => toRow(source, d, now, ruledOf, fingerprintOf, grouping, paths));
  const noted: string[] = [];
  const recorded = await sql.begin((tx) => write(tx, source, rows, noted));
  // Known once committed: a rolled-back batch's types are written again by the next one.
  rememberErrorTypes(noted);
  // A new dead letter in a resolved cluster reopens it (a regression), once the batch is stored.
  const counted = new Set(rows.flatMap((r, i) => (recorded[i]?.created && r.cluster_id ? [r.cluster_id] : [])));
  if (counted.size) await reopenRegressions([...counted], opts.now ? { now: () => opts.now! } : undefined);
  return recorded;
}

/** A source's grouping rules, for callers that did not read them with the source (one primary-key lookup). */
export async function sourceGrouping(sql: postgres.Sql, sourceId: string): Promise<SourceGrouping> {
  const [s] = await sql<{ grouping_rules: unknown; grouping_version: number }[]>`
    SELECT grouping_rules, grouping_version FROM sources WHERE id = ${sourceId}::uuid`;
  return s ? groupingOf(s.grouping_rules, s.grouping_version) : NO_GROUPING;
}

async function write(tx: postgres.TransactionSql, source: SourcePolicy, rows: Row[], noted: string[]): Promise<RecordedDeadLetter[]> {
  await assignClusters(tx, rows);
  // The first occurrence of each key, in key order (the lock order of concurrent claims).
  const keys = rows.map((r) => keyOf(r.message_id, r.generation));
  const first = new Map<string, Row>();
  for (let i = 0; i < rows.length; i++) if (!first.has(keys[i]!)) first.set(keys[i]!, rows[i]!);
  const candidates = [...first.values()].sort((a, b) => (a.message_id !== b.message_id ? (a.message_id < b.message_id ? -1 : 1) : a.generation - b.generation));
  const inserted = await claimKeys(tx, source.id, candidates);
  const createdIds = new Map(inserted.map((r) => [keyOf(r.message_id, r.generation), r.id]));
  const fresh = candidates.filter((r) => createdIds.has(keyOf(r.message_id, r.generation)));
  // One after the other: nothing may be pipelined into a COPY.
  const existing = await lookupExisting(
    tx,
    source.id,
    candidates.filter((r) => !createdIds.has(keyOf(r.message_id, r.generation))),
  );
  await insertRows(
    tx,
    fresh,
    fresh.map((r) => createdIds.get(keyOf(r.message_id, r.generation))!),
  );
  // The same message id twice in one batch: the first occurrence creates it.
  const stored = new Map<string, Row>();
  const created: Row[] = [];
  const result = rows.map((r, i) => {
    const k = keys[i]!;
    const id = createdIds.get(k);
    if (id !== undefined && !stored.has(k)) {
      stored.set(k, r);
      created.push(r);
      return { messageId: r.message_id, id: id.toString(), sha256: r.payload_sha256, created: true };
    }
    const e = existing.get(k);
    // A repeat within this batch answers with the stored (first) occurrence's id and SHA-256.
    const sha = stored.get(k)?.payload_sha256 ?? e?.sha ?? r.payload_sha256;
    return { messageId: r.message_id, id: (id ?? e?.id ?? 0n).toString(), sha256: sha, created: false };
  });
  // Independent statements of one transaction: sent together, one round trip (postgres.js pipelines them).
  await Promise.all([
    queueForSearch(
      tx,
      inserted.map((r) => r.id),
    ),
    countIntoClusters(tx, created),
  ]);
  // Last, after the cluster locks; a round trip only for a type this process has not written before.
  noted.push(
    ...(await noteErrorTypes(
      tx,
      source.id,
      created.map((r) => r.error_type),
    )),
  );
  return result;
}
