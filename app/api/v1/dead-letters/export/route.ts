// GET /api/v1/dead-letters/export?format=csv|ndjson&payload=true|false&revealReason=…&…filters — stream a filtered selection (audited; masked payloads need a reason)
import { api } from '@/lib/auth/guard';
import { exportDeadLetters, exportQuery } from '@/lib/deadletters/export-dead-letters';

export const GET = api('deadletters.read', { query: exportQuery }, async ({ actor, query: { format, payload, revealReason, ...filters } }) => {
  const x = await exportDeadLetters(actor, filters, { format, payload, reason: revealReason });
  return new Response(x.stream, {
    headers: {
      'Content-Type': x.contentType,
      'Content-Disposition': `attachment; filename="${x.filename}"`,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'private, no-store',
      'X-Total-Count': String(x.count),
    },
  });
});
