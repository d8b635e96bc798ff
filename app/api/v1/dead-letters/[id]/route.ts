// GET /api/v1/dead-letters/{id} — one dead letter: all metadata, sha256, payloadSize, status, failure history, decision
import { api, pathParams } from '@/lib/auth/guard';
import { getDeadLetter } from '@/lib/deadletters/get-dead-letter';

export const GET = api('deadletters.read', { params: pathParams('id') }, async ({ actor, params }) => {
  return Response.json(await getDeadLetter(actor, params.id));
});
