// GET /api/v1/dead-letters/{id}/versions/{version}/payload — an edited copy's exact bytes with its SHA-256; masked like the original (?reveal=)
import { api, pathParams } from '@/lib/auth/guard';
import { droppedByRetentionAnswer, payloadResponse, revealQuery } from '@/lib/deadletters/route-shapes';
import { requireRevealForDownload } from '@/lib/deadletters/reveal-payload';
import { getVersionPayload } from '@/lib/redrive/edit/version-payload';
import { BYTES } from '@/lib/openapi/media';

export const GET = api(
  'deadletters.read',
  {
    summary: "An edited version's exact bytes",
    description:
      "Served like the original payload (attachment, X-Payload-Sha256 the version's own SHA-256, nosniff, sandboxing CSP). The same reveal rules: a version whose bytes hold sensitive values, or of a masked original, needs payload.reveal and `reveal`, the id of a reveal of this dead letter POSTed to …/reveal.",
    tags: ['dead letters'],
    responses: {
      200: { description: 'The bytes', content: BYTES },
      410: droppedByRetentionAnswer,
    },
    params: pathParams('id', 'version'),
    query: revealQuery,
  },
  async ({ actor, params, query }) => {
    const v = await getVersionPayload(actor, params.id, params.version);
    if (v.masked) await requireRevealForDownload(actor, params.id, query.reveal);
    return payloadResponse(v.deadLetterId, v.payload, v.contentType, v.sha256, `dead-letter-${v.deadLetterId}-v${v.version}.bin`);
  },
);
