// Streamed export of a filtered selection as CSV or NDJSON: keyset batches pulled as the client reads
// (memory stays flat at any size, and no connection is held between batches), audited at the start
// with the filter and count. Each record is built as JSON text by Postgres, so Node only joins lines
// (NDJSON) or parses one JSON value per row (CSV): at a million rows that is most of the cost saved.
// CSV cells that a spreadsheet would run as a formula are defused (lib/export/csv.ts); payloads are
// masked for roles without payload.reveal (lib/masking).
import { z } from 'zod';
import { db, pg } from '@/lib/db';
import { primaryLsn, readDbSeeing, replicaReadFailed } from '@/lib/db/replica';
import { append } from '@/lib/audit';
import { auditActor, authorize, sourceScope, type Principal } from '@/lib/auth';
import { csvRow } from '@/lib/export/csv';
import { canReveal, maskDeadLetterText, maskErrorText, maskStoredPayload } from '@/lib/masking';
import { deadLetterFilters, type Cursor, type DeadLetterFiltersInput } from './filters';
import { planQuery, selectByIds, selectPage, whereAll } from './query';
import { takeWithinBytes } from '@/lib/db/byte-bound';
import { forbidden } from '@/lib/errors';
import { log } from '@/lib/log';
import { countDeadLetters } from './list-dead-letters';

export const exportOptions = z.object({
  format: z.enum(['csv', 'ndjson']).default('ndjson').describe('Output format'),
  // Payloads (base64) make an export as large as the data itself: opt in.
  payload: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Include payloads (base64)'),
  // An export that reveals (a POST, with payload.reveal): why, recorded on the trail. Without it the
  // export is masked for every role, as lists and the page are until a reveal.
  reason: z.string().trim().min(1).max(1000).optional(),
});
export type ExportOptions = z.output<typeof exportOptions>;

/** /api/v1/dead-letters/export's query string: the filters and the options. */
export const exportQuery = deadLetterFilters.extend({
  format: exportOptions.shape.format,
  payload: exportOptions.shape.payload,
  // Only to say where it went: a reveal is a POST (a link cannot write one in someone's name).
  revealReason: z.string().optional().describe('Refused here (422): an export that reveals is the POST'),
});

/** POST /api/v1/dead-letters/export's body: the reveal's reason. */
export const exportRevealBody = z.object({ revealReason: exportOptions.shape.reason.unwrap() }).strict();

const BATCH = 500;
/**
 * Payload bytes one batch of an export with payloads reads (the redrive claim's bound): 500 rows of
 * 10 MiB would otherwise be 5 GiB held at once. The first row always goes, so a larger one goes alone.
 */
export const EXPORT_BATCH_BYTES = 8 << 20;
const CHUNK_CHARS = 32 * 1024;

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One record in the ingest API's shape (messageId, error, key, consumer, …, payload when asked) plus
 * what Triage added (status, decision, cluster), so an export can be ingested elsewhere as it is.
 */
const RECORD = `json_build_object(
  'id', d.id::text, 'source', (SELECT s.name FROM sources s WHERE s.id = d.source_id), 'messageId', d.message_id,
  'generation', d.generation, 'status', d.status, 'reason', d.reason,
  'error', json_build_object('type', d.error_type, 'message', d.error_message, 'stack', d.error_stack),
  'receiveCount', d.receive_count, 'redriveCount', d.redrive_count,
  'enqueuedAt', ${iso('d.enqueued_at')}, 'firstFailedAt', ${iso('d.first_failed_at')}, 'lastFailedAt', ${iso('d.last_failed_at')},
  'deadAt', ${iso('d.dead_at')}, 'expiresAt', ${iso('d.expires_at')},
  'payloadSize', d.payload_size, 'sha256', d.payload_sha256, 'contentType', d.content_type, 'clusterId', d.cluster_id,
  'key', d.ordering_key, 'correlationId', d.correlation_id,
  'consumer', CASE WHEN d.consumer_name IS NULL THEN NULL ELSE json_build_object('name', d.consumer_name, 'version', d.consumer_version) END,
  'partition', d.partition, 'offset', d."offset"::text, 'headers', d.headers, 'sensitive', d.sensitive,
  'decidedBy', (SELECT u.email FROM users u WHERE u.id = d.decided_by_id), 'decidedAt', ${iso('d.decided_at')},
  'decisionReason', d.decision_reason`;
// Postgres's base64 breaks lines every 76 characters; JSON wants one string.
const PAYLOAD_FIELDS = `, 'payload', translate(encode(d.payload, 'base64'), E'\\n', ''), 'payloadMasked', false`;

interface ExportRecord {
  id: string;
  source: string;
  messageId: string;
  status: string;
  reason: string;
  error: { type: string | null; message: string | null; stack?: string | null };
  receiveCount: number;
  redriveCount: number;
  enqueuedAt: string | null;
  firstFailedAt: string | null;
  lastFailedAt: string | null;
  deadAt: string;
  expiresAt: string;
  payloadSize: number;
  sha256: string;
  contentType: string | null;
  clusterId: string | null;
  key: string | null;
  correlationId: string | null;
  consumer: { name: string; version: string | null } | null;
  partition: number | null;
  offset: string | null;
  headers: unknown;
  sensitive: boolean;
  decidedBy: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  payload?: string | null;
  payloadMasked?: boolean;
}

const CSV_COLUMNS: [string, (x: ExportRecord) => unknown][] = [
  ['id', (x) => x.id],
  ['source', (x) => x.source],
  ['message_id', (x) => x.messageId],
  ['status', (x) => x.status],
  ['reason', (x) => x.reason],
  ['error_type', (x) => x.error.type],
  ['error_message', (x) => x.error.message],
  ['receive_count', (x) => x.receiveCount],
  ['redrive_count', (x) => x.redriveCount],
  ['enqueued_at', (x) => x.enqueuedAt],
  ['first_failed_at', (x) => x.firstFailedAt],
  ['last_failed_at', (x) => x.lastFailedAt],
  ['dead_at', (x) => x.deadAt],
  ['expires_at', (x) => x.expiresAt],
  ['payload_size', (x) => x.payloadSize],
  ['sha256', (x) => x.sha256],
  ['content_type', (x) => x.contentType],
  ['cluster_id', (x) => x.clusterId],
  ['key', (x) => x.key],
  ['correlation_id', (x) => x.correlationId],
  ['consumer', (x) => (x.consumer ? [x.consumer.name, x.consumer.version].filter(Boolean).join('@') : null)],
  ['partition', (x) => x.partition],
  ['offset', (x) => x.offset],
  ['headers', (x) => x.headers],
  ['sensitive', (x) => x.sensitive],
  ['decided_by', (x) => x.decidedBy],
  ['decided_at', (x) => x.decidedAt],
  ['decision_reason', (x) => x.decisionReason],
];
const CSV_PAYLOAD_COLUMNS: [string, (x: ExportRecord) => unknown][] = [
  ['payload_base64', (x) => x.payload],
  ['payload_masked', (x) => x.payloadMasked],
];

interface Row {
  id: bigint;
  dead_at: Date;
  json: string;
  source_id?: string;
  sensitive?: boolean;
  payload_masked?: boolean | null;
  text_masked?: boolean | null;
  payload?: Buffer | null;
}

/** What one batch read held: tests check the byte bound through it, the bench reports it. */
export interface ExportBatch {
  rows: number;
  payloadBytes: number;
}

export interface ExportHooks {
  onBatch?: (batch: ExportBatch) => void;
  /** Payload bytes a batch may hold (EXPORT_BATCH_BYTES); the bench and tests may lower it. */
  maxBatchBytes?: number;
}

export interface DeadLetterExport {
  stream: ReadableStream<Uint8Array>;
  count: number;
  contentType: string;
  filename: string;
}

/** Start an export: audit it (filter, format, count), then stream the rows as they are read. */
export async function exportDeadLetters(
  actor: Principal,
  filtersInput: DeadLetterFiltersInput,
  opts: ExportOptions,
  hooks: ExportHooks = {},
): Promise<DeadLetterExport> {
  authorize(actor, 'deadletters.read');
  const filters = deadLetterFilters.parse(filtersInput);
  // One rule with the page: masked for every role, unless the export is a reveal (a reason, and
  // payload.reveal), recorded with the selection and how many masked records it revealed (by the
  // stored verdicts: text, and payloads when they are exported). Its search never matches inside
  // masked values: the export event records the query and the count, which would tell an auditor
  // what a dead letter holds.
  const reveal = opts.reason !== undefined;
  if (reveal && !canReveal(actor)) throw forbidden('An export that reveals masked values needs the payload.reveal permission');
  // The counts go into the audit events, so they are the primary's; the rows stream from the
  // replica when it is fit (lib/db/replica.ts).
  const audited = await planQuery(actor, filters);
  const { count } = await countDeadLetters(actor, filters, { cap: null, sql: audited.sql });
  let revealed = 0;
  if (reveal && audited.restrict?.length !== 0) {
    const recomputing = audited.sources.filter((s) => s.recomputing).map((s) => s.id);
    const payloadMasked = opts.payload ? audited.sql`OR (d.payload IS NOT NULL AND d.payload_masked IS NOT FALSE)` : audited.sql``;
    const [m] = await audited.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM dead_letters d
      WHERE ${whereAll(audited, [audited.sql`(d.text_masked IS NOT FALSE ${payloadMasked} OR d.source_id = ANY(${recomputing}::uuid[]))`])}`;
    revealed = m?.n ?? 0;
  }
  await db().$transaction(async (tx) => {
    if (revealed > 0) {
      await append(tx, {
        actor: auditActor(actor),
        action: 'payload.reveal',
        targetType: 'deadletter',
        selection: { filter: filters },
        count: revealed,
        reason: opts.reason!,
        teamId: sourceScope(actor, 'deadletters.read').teamId ?? null,
        after: { via: 'export' },
      });
    }
    await append(tx, {
      actor: auditActor(actor),
      action: 'deadletter.export',
      targetType: 'deadletter',
      selection: { filter: filters, format: opts.format, payload: opts.payload },
      count,
      teamId: sourceScope(actor, 'deadletters.read').teamId ?? null,
    });
  });

  // The rows come from the replica only once it has replayed what the count saw: a replica a moment
  // behind would send fewer rows than the header and the trail say, and nothing would tell.
  const counted = await primaryLsn();
  let plan = await planQuery(actor, filters, 'deadletters.read', { sql: await readDbSeeing(actor, counted) });
  // Unless it reveals, records pass through lib/masking in Node (headers and error text whose stored
  // verdict is not clear, and payloads); a reveal's Postgres builds whole.
  const maskInNode = !reveal;
  const maskPayloads = opts.payload && maskInNode;
  const columns = `d.id, d.dead_at, ${RECORD}${opts.payload && !maskPayloads ? PAYLOAD_FIELDS : ''})::text AS json${
    maskInNode ? `, d.text_masked${maskPayloads ? ', d.source_id, d.sensitive, d.payload_masked, d.payload' : ''}` : ''
  }`;
  const csvColumns = opts.payload ? [...CSV_COLUMNS, ...CSV_PAYLOAD_COLUMNS] : CSV_COLUMNS;
  const sources = new Map(plan.sources.map((s) => [s.id, s]));
  const encoder = new TextEncoder();

  const maskText = (x: ExportRecord, r: Row): ExportRecord => {
    // A decision reason is free text that no verdict covers: always through the detectors.
    if (x.decisionReason) x = { ...x, decisionReason: maskErrorText(x.decisionReason) ?? null };
    if (r.text_masked === false) return x;
    const t = maskDeadLetterText({ headers: x.headers, errorMessage: x.error.message, errorStack: x.error.stack ?? null });
    return { ...x, headers: t.headers, error: { ...x.error, message: t.errorMessage ?? null, stack: t.errorStack ?? null } };
  };
  const masked = (r: Row): ExportRecord => {
    const x = maskText(JSON.parse(r.json) as ExportRecord, r);
    if (!maskPayloads) return x;
    if (!r.payload) return { ...x, payload: null, payloadMasked: false };
    const source = sources.get(r.source_id!);
    const m = maskStoredPayload(
      r.payload,
      { sensitive: r.sensitive, paths: source?.sensitivePaths ?? [] },
      r.payload_masked ?? null,
      source?.recomputing ?? false,
    );
    if (m.state === 'clear') return { ...x, payload: r.payload.toString('base64'), payloadMasked: false };
    return { ...x, payload: m.state === 'masked' ? m.bytes.toString('base64') : null, payloadMasked: true };
  };
  const line = (r: Row): string => {
    if (opts.format === 'ndjson') return `${maskInNode ? JSON.stringify(masked(r)) : r.json}\n`;
    const x = maskInNode ? masked(r) : (JSON.parse(r.json) as ExportRecord);
    return csvRow(csvColumns.map(([, get]) => get(x)));
  };

  // With payloads, a batch is sized first (octet_length reads a stored bytea's size, not its bytes)
  // and cut to the byte bound, then only the rows it keeps are read whole.
  const maxBatchBytes = hooks.maxBatchBytes ?? EXPORT_BATCH_BYTES;
  const at = (r: { id: bigint; dead_at: Date } | undefined): Cursor | undefined => (r ? { deadAt: r.dead_at, id: r.id } : undefined);
  const nextBatch = async (after: Cursor | undefined): Promise<{ rows: Row[]; payloadBytes: number; more: boolean; last?: Cursor }> => {
    if (!opts.payload) {
      const rows = await selectPage<Row>(plan, columns, after, BATCH);
      return { rows, payloadBytes: 0, more: rows.length === BATCH, last: at(rows[rows.length - 1]) };
    }
    const keys = await selectPage<{ id: bigint; dead_at: Date; bytes: number }>(
      plan,
      'd.id, d.dead_at, coalesce(octet_length(d.payload), 0)::int AS bytes',
      after,
      BATCH,
    );
    const kept = keys.slice(
      0,
      takeWithinBytes(
        keys.map((k) => k.bytes),
        maxBatchBytes,
      ),
    );
    // A row purged between the two reads is simply not in the batch; the cursor moves past it.
    const rows = await selectByIds<Row>(
      plan,
      columns,
      kept.map((k) => k.id),
    );
    return {
      rows,
      payloadBytes: kept.reduce((a, k) => a + k.bytes, 0),
      more: kept.length < keys.length || keys.length === BATCH,
      last: at(kept[kept.length - 1]),
    };
  };

  // Each batch reads where every counted row is: the replica while it has replayed past the count,
  // else the primary (a replica restarted between batches can come back behind it). Keyset batches
  // carry no state, so a replica that stops under one has that batch read again from the primary,
  // and the download goes on whole, before or after rows went out.
  let sentRows = 0;
  const readFrom = async () => {
    if (plan.sql === pg()) return;
    const sql = await readDbSeeing(actor, counted);
    if (sql !== plan.sql) plan = await planQuery(actor, filters, 'deadletters.read', { sql });
  };
  const batchAfter = async (after: Cursor | undefined) => {
    await readFrom();
    try {
      return await nextBatch(after);
    } catch (e) {
      if (plan.sql === pg()) throw e;
      // Stopped (then counted as down), or a query the standby cancelled for its replay: the
      // primary reads the batch again.
      const stopped = replicaReadFailed(e);
      log.warn({ err: e, sent: sentRows, count, stopped }, 'export goes on from the primary: its read on the replica failed');
      plan = await planQuery(actor, filters, 'deadletters.read', { sql: pg() });
      return nextBatch(after);
    }
  };

  let cursor: Cursor | undefined;
  let started = false;
  let done = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let out = '';
        if (!started && opts.format === 'csv') out += csvRow(csvColumns.map(([h]) => h));
        started = true;
        if (!done) {
          const { rows, payloadBytes, more, last } = await batchAfter(cursor);
          hooks.onBatch?.({ rows: rows.length, payloadBytes });
          for (const r of rows) {
            out += line(r);
            // Small chunks stay in V8's young generation; a batch-sized string would land in
            // large-object space and pile up until a full GC.
            if (out.length >= CHUNK_CHARS) {
              controller.enqueue(encoder.encode(out));
              out = '';
            }
          }
          sentRows += rows.length;
          if (last) cursor = last;
          done = !more;
        }
        if (out) controller.enqueue(encoder.encode(out));
        if (done) controller.close();
      },
      // Nothing is read before the client reads: no batch for a request that is dropped at once.
    },
    { highWaterMark: 0 },
  );
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    stream,
    count,
    contentType: opts.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    filename: `dead-letters-${stamp}.${opts.format}`,
  };
}
