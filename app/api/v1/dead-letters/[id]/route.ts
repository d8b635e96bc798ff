// GET /api/v1/dead-letters/{id} — one dead letter: all metadata, sha256, payloadSize, status, failure history, decision
import { api } from '@/lib/auth/guard';
import { getDeadLetter } from '@/lib/deadletters/get-dead-letter';

export const GET = api<{ id: string }>('deadletters.read', async (_req, { actor, params }) => {
  return Response.json(await getDeadLetter(actor, params.id));
});
