// Recomputing stored masking verdicts (./verdict.ts) in bounded batches: after a source's sensitive
// paths change, and once for the rows that existed before verdicts did (the migration marks their
// sources). Each source keeps a cursor, masking_recompute_from; its dead letters count as masked
// while it is set, and the job walks them in id order, a batch bounded by rows and by payload bytes,
// under the source row's lock (a policy change waits for the batch, and the batch reads the paths
// the change left). Run by the maintenance worker every few seconds; progress is on the policy view.
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { sensitivePathsOf } from './policy';
import { payloadVerdict, textVerdict } from './verdict';
import { takeWithinBytes } from '@/lib/db/byte-bound';

export const RECOMPUTE_BATCH = 500;
/** Payload bytes one batch may hold in memory. */
export const RECOMPUTE_BATCH_BYTES = 32 * 1024 * 1024;
const PROGRESS_CAP = 100_000;
// postgres.js sends a JS boolean array as a scalar; as text it casts cleanly.
const bool = (b: boolean) => (b ? 't' : 'f');

export interface RecomputeResult {
  /** Rows whose verdicts were decided in this run. */
  updated: number;
  /** Sources still being recomputed after it. */
  remaining: number;
}

/**
 * One batch per source whose verdicts are being recomputed; with `budgetMs`, more rounds until the
 * work is done or the time is used (the maintenance job: a million rows take minutes, not hours).
 */
export async function recomputeVerdicts(opts: { sql?: postgres.Sql; batch?: number; batchBytes?: number; budgetMs?: number } = {}): Promise<RecomputeResult> {
  const started = Date.now();
  let total = 0;
  for (;;) {
    const r = await recomputeRound(opts);
    total += r.updated;
    if (r.remaining === 0 || !opts.budgetMs || Date.now() - started >= opts.budgetMs) return { updated: total, remaining: r.remaining };
  }
}

async function recomputeRound(opts: { sql?: postgres.Sql; batch?: number; batchBytes?: number }): Promise<RecomputeResult> {
  const sql = opts.sql ?? pg();
  const batch = opts.batch ?? RECOMPUTE_BATCH;
  const batchBytes = opts.batchBytes ?? RECOMPUTE_BATCH_BYTES;
  const pending = await sql<{ id: string }[]>`SELECT id FROM sources WHERE masking_recompute_from IS NOT NULL ORDER BY id`;
  let updated = 0;
  let remaining = 0;
  for (const { id } of pending) {
    const r = await sql.begin(async (tx) => {
      const [source] = await tx<{ from: string | null; sensitive_paths: unknown }[]>`
        SELECT masking_recompute_from::text AS from, sensitive_paths FROM sources WHERE id = ${id}::uuid FOR UPDATE`;
      if (!source?.from) return { n: 0, more: false };
      // Sizes first, so a batch of 10 MiB payloads stops at the byte bound, not at the row count.
      const sizes = await tx<{ id: bigint; payload_size: number }[]>`
        SELECT id, payload_size FROM dead_letters WHERE source_id = ${id}::uuid AND id >= ${source.from}::bigint ORDER BY id LIMIT ${batch}`;
      const take = takeWithinBytes(
        sizes.map((s) => s.payload_size),
        batchBytes,
      );
      const ids = sizes.slice(0, take).map((s) => s.id.toString());
      const rows = ids.length
        ? await tx<
            {
              id: bigint;
              payload: Buffer | null;
              sensitive: boolean;
              headers: string;
              error_message: string | null;
              error_stack: string | null;
              failure_history: string;
            }[]
          >`
            SELECT id, payload, sensitive, headers::text AS headers, error_message, error_stack, failure_history::text AS failure_history
            FROM dead_letters WHERE id = ANY(${ids}::bigint[])`
        : [];
      const paths = sensitivePathsOf(source.sensitive_paths);
      if (rows.length) {
        await tx`
          UPDATE dead_letters d SET payload_masked = v.payload_masked, text_masked = v.text_masked
          FROM unnest(${rows.map((r) => r.id.toString())}::bigint[], ${rows.map((r) => bool(r.payload ? payloadVerdict(r.payload, { sensitive: r.sensitive, paths }) : false))}::text[]::boolean[],
                      ${rows.map((r) => bool(textVerdict([r.headers, r.error_message, r.error_stack, r.failure_history])))}::text[]::boolean[])
               AS v(id, payload_masked, text_masked)
          WHERE d.id = v.id`;
      }
      const more = take < sizes.length || sizes.length === batch;
      const next = more ? (BigInt(ids[ids.length - 1] ?? source.from) + 1n).toString() : null;
      await tx`UPDATE sources SET masking_recompute_from = ${next}::bigint WHERE id = ${id}::uuid`;
      return { n: rows.length, more };
    });
    updated += r.n;
    if (r.more) remaining++;
  }
  return { updated, remaining };
}

/** How far a source's recompute is: done, or the dead letters still to decide (counted up to 100,000). */
export async function recomputeProgress(sourceId: string, opts: { sql?: postgres.Sql } = {}): Promise<{ done: boolean; remaining: number; capped: boolean }> {
  const sql = opts.sql ?? pg();
  const [s] = await sql<{ from: string | null }[]>`SELECT masking_recompute_from::text AS from FROM sources WHERE id = ${sourceId}::uuid`;
  if (!s?.from) return { done: true, remaining: 0, capped: false };
  const [c] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM dead_letters WHERE source_id = ${sourceId}::uuid AND id >= ${s.from}::bigint LIMIT ${PROGRESS_CAP + 1}) t`;
  const n = c?.n ?? 0;
  return { done: false, remaining: Math.min(n, PROGRESS_CAP), capped: n > PROGRESS_CAP };
}
