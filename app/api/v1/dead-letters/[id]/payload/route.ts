// GET /api/v1/dead-letters/{id}/payload — the exact payload bytes, as an attachment; a masked payload needs ?reveal= with the id of a reveal POSTed to /reveal
import { api, pathParams } from '@/lib/auth/guard';
import { getDeadLetterPayload, maskedView } from '@/lib/deadletters/get-dead-letter';
import { gone, payloadResponse, revealQuery } from '@/lib/deadletters/route-shapes';
import { requireRevealForDownload } from '@/lib/deadletters/reveal-payload';
import { BYTES } from '@/lib/openapi/media';

export const GET = api(
  'deadletters.read',
  {
    summary: 'The exact payload bytes',
    description:
      'Served as an attachment with the original Content-Type, exact Content-Length, X-Payload-Sha256, nosniff and a sandboxing CSP. A masked (sensitive) payload needs payload.reveal and `reveal`: the id of a reveal POSTed to …/reveal with a reason (a payload.reveal audit event). A GET never reveals.',
    tags: ['dead letters'],
    responses: { 200: { description: 'The bytes', content: BYTES } },
    errors: [410],
    params: pathParams('id'),
    query: revealQuery,
  },
  async ({ actor, params, query }) => {
    const p = await getDeadLetterPayload(actor, params.id);
    if (!p.payload) return gone(`The payload was deleted (${p.status}); the dead letter is kept as a tombstone`);
    // Sensitive paths, the sensitive flag or a detected card number, IBAN or e-mail: the exact bytes are a reveal.
    if (maskedView({ ...p, payload: p.payload }).state !== 'clear') await requireRevealForDownload(actor, params.id, query.reveal);
    return payloadResponse(p.id, p.payload, p.contentType, p.sha256);
  },
);
