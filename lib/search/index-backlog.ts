// Drain search_backlog into dead_letter_search: the trigram indexing that used to cost three
// quarters of every ingest, done here in bulk and off the ingest path. Safe to run in several
// processes at once (SKIP LOCKED), and idempotent.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { PAYLOAD_HEAD_BYTES, payloadText } from './search-text';

// 5,000 a statement rather than 2,000: fewer round trips and commits for the same trigram work.
export const INDEX_BATCH = 5_000;

/** Index up to `limit` queued dead letters in one transaction; returns how many were taken. */
export async function indexBacklog(opts: { sql?: postgres.Sql; limit?: number } = {}): Promise<number> {
  const sql = opts.sql ?? pg();
  return sql.begin(async (tx) => {
    // One statement takes the ids and writes every row whose text Postgres can tell by itself
    // (search_payload_text: short valid UTF-8, or no payload left), so those payloads never travel
    // to Node and back; the rest (binary, long, NUL, BOM) go through payloadText below, as before.
    // DO NOTHING: a discard that got here first (closeDeadLetters writes the row without payload
    // text) wins; one that comes later waits on this row's key and then clears the text.
    const [taken] = await tx<{ n: number; rest: string[] | null }[]>`
      WITH taken AS (
        DELETE FROM search_backlog WHERE dead_letter_id IN (
          SELECT dead_letter_id FROM search_backlog ORDER BY dead_letter_id LIMIT ${opts.limit ?? INDEX_BATCH} FOR UPDATE SKIP LOCKED)
        RETURNING dead_letter_id),
      found AS (
        SELECT d.id, search_error_text(d.error_type, d.error_message, d.error_stack) AS error_text, d.payload IS NULL AS gone,
          search_payload_text(d.payload, d.payload_size) AS text
        -- Through the key table to (id, dead_at), the partitions' key: a join on id alone hashed a
        -- scan of every partition (300k rows in 16 months: 190 ms a batch, growing with the table;
        -- this way 70-110 ms, one probe per id).
        FROM taken JOIN dead_letter_keys k ON k.id = taken.dead_letter_id JOIN dead_letters d ON d.id = k.id AND d.dead_at = k.dead_at),
      written AS (
        INSERT INTO dead_letter_search (dead_letter_id, payload_text, error_text)
        SELECT id, text, error_text FROM found WHERE gone OR text IS NOT NULL
        ON CONFLICT (dead_letter_id) DO NOTHING)
      SELECT (SELECT count(*) FROM taken)::int AS n,
             (SELECT array_agg(id::text) FROM found WHERE NOT gone AND text IS NULL) AS rest`;
    if (!taken || taken.n === 0) return 0;
    if (!taken.rest?.length) return taken.n;
    const rows = await tx<{ id: bigint; head: Buffer | null; payload_size: number; error_text: string | null }[]>`
      SELECT id, substring(payload FROM 1 FOR ${PAYLOAD_HEAD_BYTES}) AS head, payload_size,
        search_error_text(error_type, error_message, error_stack) AS error_text
      FROM dead_letters WHERE id = ANY(${taken.rest}::bigint[])`;
    if (rows.length === 0) return taken.n;
    await tx`
      INSERT INTO dead_letter_search (dead_letter_id, payload_text, error_text)
      SELECT * FROM unnest(
        ${rows.map((r) => r.id.toString())}::bigint[],
        ${rows.map((r) => (r.head ? payloadText(r.head, { truncated: r.payload_size > r.head.byteLength }) : null))}::text[],
        ${rows.map((r) => r.error_text)}::text[])
      ON CONFLICT (dead_letter_id) DO NOTHING`;
    return taken.n;
  });
}

/**
 * Index until the backlog is empty (tests, seeding, the indexer's catch-up), `concurrency` batches at
 * a time (each on its own connection; SKIP LOCKED gives them different ids).
 */
export async function drainBacklog(
  opts: {
    sql?: postgres.Sql;
    limit?: number;
    concurrency?: number;
    until?: () => boolean;
    onBatch?: (n: number) => void;
    /** Each batch runs through this (the indexer's share of the write budget); resolving 0 ends the drain. */
    admit?: (batch: () => Promise<number>) => Promise<number>;
  } = {},
): Promise<number> {
  let total = 0;
  const batch = () => (opts.admit ? opts.admit(() => indexBacklog(opts)) : indexBacklog(opts));
  const loop = async () => {
    for (let n = await batch(); n > 0; n = opts.until?.() ? 0 : await batch()) {
      total += n;
      opts.onBatch?.(n);
    }
  };
  // Settled, not all: a failing batch returns only once its siblings stopped, so none outlives the call.
  const failed = (await Promise.allSettled(Array.from({ length: opts.concurrency ?? 1 }, loop))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return total;
}

/**
 * Dead letters not yet searchable, counted up to `cap` (a count never scans a large backlog);
 * only those of `sourceIds` when given (a team sees its own backlog, not another's).
 */
export async function backlogSize(opts: { sql?: postgres.Sql; cap?: number; sourceIds?: string[] } = {}): Promise<{ count: number; capped: boolean }> {
  const sql = opts.sql ?? pg();
  const cap = opts.cap ?? 10_000;
  // The key table has the source and a unique id: no probe of every partition per entry.
  const [row] = opts.sourceIds
    ? await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (SELECT 1 FROM search_backlog b JOIN dead_letter_keys d ON d.id = b.dead_letter_id
        WHERE d.source_id = ANY(${opts.sourceIds}::uuid[]) LIMIT ${cap + 1}) b`
    : await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (SELECT 1 FROM search_backlog LIMIT ${cap + 1}) b`;
  const n = row?.n ?? 0;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}
