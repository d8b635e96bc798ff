// GET /api/v1/dead-letters/{id}/versions/{version}/payload — an edited copy's exact bytes with its SHA-256; masked like the original (?reveal=)
import { api } from '@/lib/auth/guard';
import { payloadResponse } from '@/lib/deadletters/http';
import { requireRevealForDownload } from '@/lib/deadletters/reveal-payload';
import { getVersionPayload } from '@/lib/redrive/edit/version-payload';

export const GET = api<{ id: string; version: string }>('deadletters.read', async (req, { actor, params }) => {
  const v = await getVersionPayload(actor, params.id, params.version);
  if (v.masked) await requireRevealForDownload(actor, params.id, new URL(req.url).searchParams.get('reveal') ?? undefined);
  return payloadResponse(v.deadLetterId, v.payload, v.contentType, v.sha256, `dead-letter-${v.deadLetterId}-v${v.version}.bin`);
});
