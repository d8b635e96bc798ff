// HTTP shapes shared by the dead-letter route handlers: list and download query strings, the payload download.
import { z } from 'zod';
import type { Principal } from '@/lib/auth';
import { BulkDecisionResult, DecisionResult, MAX_BULK, bulkDecisionInput, decideSelection, decisionInput, type Decision } from './decide';
import { deadLetterFilters, type DeadLetterFiltersInput } from './filters';
import { countDeadLetters, listDeadLetters, DeadLetterPageWithCount, MAX_PAGE_SIZE } from './list-dead-letters';
import { DeadLetterGoneView } from './get-tombstone';

/** A list's query string: the filters, the keyset cursor, the page size; `count=true` adds a capped count. */
export const deadLetterListQuery = deadLetterFilters.extend({
  cursor: z.string().optional().describe('nextCursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50).describe('Page size'),
  count: z
    .string()
    .optional()
    .transform((v) => v === 'true')
    .describe('true: add a capped count of all matches'),
  reveal: z
    .string()
    .optional()
    .describe('The id of your search reveal (POST /api/v1/dead-letters/search-reveal): text search then matches inside masked values too'),
});

/** The 410 answer of a route that reads one dead letter, when retention dropped it (its tombstone). */
export const droppedByRetentionAnswer = {
  description: 'Dropped by retention (its month was decided and past retention): error.details.tombstone is what is kept of it',
  view: DeadLetterGoneView,
};

/** What the dead-letter list routes' specs share (all sources, one source): each adds its summary and query. */
export const deadLetterListRoute = {
  tags: ['dead letters'],
  responses: { 200: { description: 'A page', view: DeadLetterPageWithCount } },
  errors: [400],
};

/** A list route's answer: the page its query asks for (`only`: filters the path sets), with the capped count when asked. */
export async function deadLetterPage(actor: Principal, query: Omit<z.output<typeof deadLetterListQuery>, 'source'>, only: DeadLetterFiltersInput = {}) {
  const { cursor, limit, count: withCount, reveal, ...q } = query;
  const filters = { ...q, ...only };
  const [page, count] = await Promise.all([
    listDeadLetters(actor, filters, cursor ?? null, { limit, reveal }),
    withCount ? countDeadLetters(actor, filters, { reveal }) : undefined,
  ]);
  return count ? { ...page, count } : page;
}

/** A payload download's query string: the id of a reveal POSTed before, for a masked payload. */
export const revealQuery = z.object({ reveal: z.string().optional().describe('A recent reveal id of yours for this dead letter, from POST …/reveal') });

// Route specs (lib/auth/guard.ts RouteSpec) the archive and discard routes share: each adds its summary.
/** One dead letter: its id, { reason }; the decision or a 409 when its status does not allow it. */
export const decisionRoute = {
  description: 'Audited in the same transaction.',
  tags: ['dead letters'],
  responses: { 200: { description: 'Decided', view: DecisionResult } },
  errors: [409],
  params: z.object({ id: z.string() }),
  body: decisionInput,
};

/** A selection: { selection, reason }; how many were decided. */
export const bulkDecisionRoute = {
  description: `Every dead letter of the selection whose status allows it, at most ${MAX_BULK}; one transaction and one audit event naming the selection and count.`,
  tags: ['dead letters'],
  responses: { 200: { description: 'Decided', view: BulkDecisionResult } },
  body: bulkDecisionInput,
};

/** The bulk decision routes' handler (lib/auth/guard.ts familyRoute): decide the selection, answer how many. */
export function answerBulkDecision(decision: Decision) {
  return async ({ actor, body }: { actor: Principal; body: z.output<typeof bulkDecisionInput> }) =>
    Response.json(await decideSelection(actor, decision, body.selection, body.reason));
}

// type/subtype with optional parameters, nothing else: anything odd is served as octet-stream.
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;\s*[\w!#$&^.+-]+=("[^"\\\r\n]*"|[\w!#$&^.+-]+))*$/;

/**
 * The exact bytes as an attachment: the original Content-Type (so a client knows what it got), but
 * never rendered by a browser (attachment, nosniff, a sandboxing CSP), whatever the bytes contain.
 */
export function payloadResponse(id: bigint, bytes: Uint8Array, contentType: string | null, sha256: string, filename = `dead-letter-${id}.bin`): Response {
  const type = contentType && MEDIA_TYPE.test(contentType) ? contentType : 'application/octet-stream';
  return new Response(new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength), {
    status: 200,
    headers: {
      'Content-Type': type,
      'Content-Length': String(bytes.byteLength),
      'Content-Disposition': `attachment; filename="${filename}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      // no-transform: the exact bytes, so no gzip on the way (which would drop the Content-Length).
      'Cache-Control': 'private, no-store, no-transform',
      'X-Payload-Sha256': sha256,
    },
  });
}

export function gone(message: string): Response {
  return Response.json({ error: { code: 'gone', message } }, { status: 410 });
}
