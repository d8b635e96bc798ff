// GET /api/v1/dead-letters/export?format=csv|ndjson&payload=true|false&…filters — stream a filtered selection, masked for every role (audited)
// POST /api/v1/dead-letters/export?…same query — the same export revealing masked values: body { revealReason } (payload.reveal; audited)
import { api } from '@/lib/auth/guard';
import { AppError } from '@/lib/errors';
import { exportDeadLetters, exportQuery, exportRevealBody, type DeadLetterExport } from '@/lib/deadletters/export-dead-letters';

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

export const GET = api('deadletters.read', { query: exportQuery }, async ({ actor, query: { format, payload, revealReason, ...filters } }) => {
  // A GET is what a link or an image sends: it never writes a reveal in its caller's name.
  if (revealReason !== undefined) {
    throw new AppError('unprocessable', 'An export that reveals masked values is a POST: POST this URL with { "revealReason": … } (recorded on the audit trail)', { field: 'revealReason' });
  }
  return attachment(await exportDeadLetters(actor, filters, { format, payload }));
});

export const POST = api('payload.reveal', { query: exportQuery, body: exportRevealBody }, async ({ actor, query: { format, payload, revealReason: _ignored, ...filters }, body }) => {
  return attachment(await exportDeadLetters(actor, filters, { format, payload, reason: body.revealReason }));
});
