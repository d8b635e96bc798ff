// GET /api/v1/dead-letters/{id}/versions/{version}/payload — an edited copy's exact bytes with its SHA-256; masked like the original (?reveal=)
import { api, pathParams } from '@/lib/auth/guard';
import { payloadResponse, revealQuery } from '@/lib/deadletters/http';
import { requireRevealForDownload } from '@/lib/deadletters/reveal-payload';
import { getVersionPayload } from '@/lib/redrive/edit/version-payload';

export const GET = api('deadletters.read', { params: pathParams('id', 'version'), query: revealQuery }, async ({ actor, params, query }) => {
  const v = await getVersionPayload(actor, params.id, params.version);
  if (v.masked) await requireRevealForDownload(actor, params.id, query.reveal);
  return payloadResponse(v.deadLetterId, v.payload, v.contentType, v.sha256, `dead-letter-${v.deadLetterId}-v${v.version}.bin`);
});
