// Read side of the dead-letter list: keyset pages and capped counts, under the actor's team scope.
// Reused by the clusters page ("all members of a cluster": filters.clusterId), exports and bulk
// selections. Never mutates.
import { z } from 'zod';
import { authorize, type Principal } from '@/lib/auth';
import { DEAD_LETTER_REASONS, DEAD_LETTER_STATUSES } from '@/lib/enums';
import type postgres from 'postgres';
import { readDb, retriedOnPrimary } from '@/lib/db/replica';
import { isoTime } from '@/lib/wire';
import { headSql, maskedHead, maskText, verdictMasked } from '@/lib/masking';
import { payloadText } from '@/lib/search';
import { decodeCursor, deadLetterFilters, encodeCursor, type Cursor, type DeadLetterFiltersInput, type DeadLetterStatus } from './filters';
import { planQuery, selectPage, whereAll } from './query';
import { requireSearchReveal } from './reveal-payload';
import type { DeadLetterReason } from '@/lib/model/dead-letter';

/** How much of an error message the list carries (a row opens to show it; the dead letter has it whole). */
export const LIST_ERROR_CHARS = 500;

export const DeadLetterSummary = z.object({
  id: z.string(),
  sourceId: z.uuid(),
  source: z.string(),
  messageId: z.string(),
  status: z.enum(DEAD_LETTER_STATUSES),
  reason: z.enum(DEAD_LETTER_REASONS),
  errorType: z.string().nullable(),
  errorMessage: z.string().nullable().describe(`The first ${LIST_ERROR_CHARS} characters`),
  errorMessageCut: z.boolean().describe(`The message is longer than the ${LIST_ERROR_CHARS} characters the list carries: the whole one is on the dead letter`),
  receiveCount: z.int(),
  redriveCount: z.int(),
  deadAt: isoTime,
  enqueuedAt: isoTime.nullable(),
  decidedAt: isoTime.nullable(),
  payloadSize: z.int(),
  sha256: z.string(),
  contentType: z.string().nullable(),
  clusterId: z.uuid().nullable(),
  masked: z.boolean().describe("The payload has sensitive fields (its flag or its source's paths): no preview"),
  preview: z.string().nullable().describe('The first 240 characters of UTF-8 payload text, e-mails, IBANs and card numbers masked; null when masked'),
});
export type DeadLetterSummary = z.infer<typeof DeadLetterSummary>;

export const DeadLetterPage = z.object({
  deadLetters: z.array(DeadLetterSummary),
  nextCursor: z.string().nullable().describe('Pass back as `cursor` for the next page; null on the last page'),
});
export type DeadLetterPage = z.infer<typeof DeadLetterPage>;

export const COUNT_CAP = 10_000;
export const DeadLetterCount = z.object({ count: z.int(), capped: z.boolean() });

/** GET /api/v1/dead-letters: a page, and with count=true its capped count. */
export const DeadLetterPageWithCount = DeadLetterPage.extend({
  count: DeadLetterCount.optional().describe(`With count=true: exact up to ${COUNT_CAP}, else capped`),
});

const PREVIEW_CHARS = 240;
const SUMMARY_COLUMNS = `d.id, d.source_id, d.message_id, d.status, d.reason, d.error_type, ${headSql('d.error_message', 'd.text_masked', LIST_ERROR_CHARS)} AS error_message,
  length(d.error_message) > ${LIST_ERROR_CHARS} AS error_cut,
  d.receive_count, d.redrive_count, d.dead_at, d.enqueued_at, d.decided_at, d.payload_size, d.payload_sha256, d.content_type,
  d.cluster_id, d.sensitive, d.payload_masked, d.text_masked, substring(d.payload FROM 1 FOR ${PREVIEW_CHARS * 4}) AS head`;

interface SummaryRow {
  id: bigint;
  source_id: string;
  message_id: string;
  status: DeadLetterStatus;
  reason: DeadLetterReason;
  error_type: string | null;
  error_message: string | null;
  error_cut: boolean | null;
  receive_count: number;
  redrive_count: number;
  dead_at: Date;
  enqueued_at: Date | null;
  decided_at: Date | null;
  payload_size: number;
  payload_sha256: string;
  content_type: string | null;
  cluster_id: string | null;
  sensitive: boolean;
  payload_masked: boolean | null;
  text_masked: boolean | null;
  head: Buffer | null;
}

/**
 * Whether text search may match inside masked values: `reveal`, the id of the caller's search reveal
 * (checked: a 422 naming the field otherwise).
 */
interface MaskedSearch {
  reveal?: string;
}

async function searchesMasked(actor: Principal, opts: MaskedSearch): Promise<boolean> {
  if (opts.reveal === undefined) return false;
  await requireSearchReveal(actor, opts.reveal);
  return true;
}

export const MAX_PAGE_SIZE = 500;

/**
 * One page of dead letters matching `filters`, newest (or oldest) first. `cursor` is the previous
 * page's nextCursor. Team-scoped roles see their team's sources only.
 */
async function listDeadLettersOnce(
  actor: Principal,
  filters: DeadLetterFiltersInput,
  cursor?: string | Cursor | null,
  opts: { limit?: number } & MaskedSearch = {},
): Promise<DeadLetterPage> {
  authorize(actor, 'deadletters.read');
  const f = deadLetterFilters.parse(filters);
  const after = typeof cursor === 'string' ? decodeCursor(cursor) : (cursor ?? undefined);
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_PAGE_SIZE);
  const plan = await planQuery(actor, f, 'deadletters.read', { maskedText: await searchesMasked(actor, opts), sql: await readDb(actor) });
  const rows = await selectPage<SummaryRow>(plan, SUMMARY_COLUMNS, after, limit + 1);
  const page = rows.slice(0, limit);
  const names = new Map(plan.sources.map((s) => [s.id, s]));
  const last = page[page.length - 1];
  return {
    deadLetters: page.map((r) => {
      const masked = verdictMasked(r.payload_masked, names.get(r.source_id)?.recomputing);
      return {
        id: r.id.toString(),
        sourceId: r.source_id,
        source: names.get(r.source_id)?.name ?? r.source_id,
        messageId: r.message_id,
        status: r.status,
        reason: r.reason,
        errorType: r.error_type,
        errorMessage: maskedHead(r.error_message, LIST_ERROR_CHARS),
        errorMessageCut: r.error_cut === true,
        receiveCount: r.receive_count,
        redriveCount: r.redrive_count,
        deadAt: r.dead_at.toISOString(),
        enqueuedAt: r.enqueued_at?.toISOString() ?? null,
        decidedAt: r.decided_at?.toISOString() ?? null,
        payloadSize: r.payload_size,
        sha256: r.payload_sha256,
        contentType: r.content_type,
        clusterId: r.cluster_id,
        masked,
        preview: masked ? null : previewOf(r),
      };
    }),
    nextCursor: rows.length > limit && last ? encodeCursor({ deadAt: last.dead_at, id: last.id }) : null,
  };
}

/** The first characters of a UTF-8 payload, e-mails, IBANs and card numbers masked; null for other bytes. */
function previewOf(r: SummaryRow): string | null {
  if (!r.head) return null;
  const text = payloadText(r.head, { truncated: r.payload_size > r.head.byteLength, maxChars: PREVIEW_CHARS });
  return text === null ? null : maskText(text);
}

/**
 * How many dead letters match: exact up to `cap` (default 10,000), else `{ count: cap, capped: true }`
 * ("10,000+"), so a count never scans millions of rows. `cap: null` counts exactly.
 */
async function countDeadLettersOnce(
  actor: Principal,
  filters: DeadLetterFiltersInput,
  opts: { cap?: number | null; sql?: postgres.Sql } & MaskedSearch = {},
): Promise<{ count: number; capped: boolean }> {
  authorize(actor, 'deadletters.read');
  const sql = opts.sql ?? (await readDb(actor));
  const plan = await planQuery(actor, deadLetterFilters.parse(filters), 'deadletters.read', { maskedText: await searchesMasked(actor, opts), sql });
  if (plan.restrict?.length === 0) return { count: 0, capped: false };
  const cap = opts.cap === undefined ? COUNT_CAP : opts.cap;
  const rows =
    cap === null
      ? await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM dead_letters d WHERE ${whereAll(plan)}`
      : await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM (SELECT 1 FROM dead_letters d WHERE ${whereAll(plan)} LIMIT ${cap + 1}) t`;
  const n = rows[0]?.n ?? 0;
  return cap !== null && n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}

/** listDeadLetters, once more on the primary if the replica goes away under it (lib/db/replica.ts). */
export const listDeadLetters = retriedOnPrimary(listDeadLettersOnce);

/** countDeadLetters, once more on the primary if the replica goes away under it (lib/db/replica.ts). */
export const countDeadLetters = retriedOnPrimary(countDeadLettersOnce);
