// GET /api/v1/dead-letters/export?format=csv|ndjson&payload=true|false&revealReason=…&…filters — stream a filtered selection (audited; masked payloads need a reason)
import { api } from '@/lib/auth/guard';
import { filtersFromSearchParams } from '@/lib/deadletters/filters';
import { exportDeadLetters, exportOptions } from '@/lib/deadletters/export-dead-letters';

export const GET = api('deadletters.read', async (req, { actor }) => {
  const url = new URL(req.url);
  const opts = exportOptions.parse({ format: url.searchParams.get('format') ?? undefined, payload: url.searchParams.get('payload') ?? undefined, reason: url.searchParams.get('revealReason') ?? undefined });
  const x = await exportDeadLetters(actor, filtersFromSearchParams(url.searchParams), opts);
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
