// GET /api/v1/dead-letters/export?format=csv|ndjson&payload=true|false&…filters — stream a filtered selection, masked for every role (audited)
// POST /api/v1/dead-letters/export?…same query — the same export revealing masked values: body { revealReason } (payload.reveal; audited)
import { api } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { exportDeadLetters, exportQuery, exportRevealBody, type DeadLetterExport } from '@/lib/deadletters/export-dead-letters';
import { EXPORT_ROWS } from '@/lib/openapi/media';

function attachment(x: DeadLetterExport): Response {
  return new Response(x.stream, {
    headers: {
      'Content-Type': x.contentType,
      'Content-Disposition': `attachment; filename="${x.filename}"`,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
      'X-Total-Count': String(x.count),
    },
  });
}

export const GET = api(
  'deadletters.read',
  {
    summary: 'Export a filtered selection, streamed (audited)',
    description:
      'CSV cells that a spreadsheet would evaluate are prefixed with an apostrophe. Masked values (headers, error text, payloads) stay masked for every role: an export that reveals them is the POST. A GET with revealReason answers 422.',
    tags: ['dead letters'],
    responses: { 200: { description: 'The rows; X-Total-Count is the count audited at the start', content: EXPORT_ROWS } },
    query: exportQuery,
  },
  async ({ actor, query: { format, payload, revealReason, ...filters } }) => {
    // A GET is what a link or an image sends: it never writes a reveal in its caller's name.
    if (revealReason !== undefined) {
      throw new AppError(
        'unprocessable',
        'An export that reveals masked values is a POST: POST this URL with { "revealReason": … } (recorded on the audit trail)',
        { field: 'revealReason' },
      );
    }
    return attachment(await exportDeadLetters(actor, filters, { format, payload }));
  },
);

export const POST = api(
  'payload.reveal',
  {
    summary: 'Export a filtered selection with its masked values revealed (payload.reveal; audited)',
    description:
      'The same query as the GET; the body gives the reason, recorded with the selection and how many masked records the export revealed (a payload.reveal event) before the deadletter.export event.',
    tags: ['dead letters'],
    responses: { 200: { description: 'The rows; X-Total-Count is the count audited at the start', content: EXPORT_ROWS } },
    query: exportQuery,
    body: exportRevealBody,
  },
  async ({ actor, query: { format, payload, revealReason: _ignored, ...filters }, body }) => {
    return attachment(await exportDeadLetters(actor, filters, { format, payload, reason: body.revealReason }));
  },
);
