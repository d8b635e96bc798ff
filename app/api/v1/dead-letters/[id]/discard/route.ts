// POST /api/v1/dead-letters/{id}/discard — discard one dead letter: delete its payload, keep a tombstone (lead/admin) with { reason }
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { decideDeadLetter, decisionInput, DECISIONS } from '@/lib/deadletters/decide';

export const POST = api<{ id: string }>(DECISIONS.discard.permission, async (req, { actor, params }) => {
  const { reason } = decisionInput.parse(await readJsonBody(req));
  return Response.json(await decideDeadLetter(actor, 'discard', params.id, reason));
});
