// POST /api/v1/dead-letters/{id}/discard — discard one dead letter: delete its payload, keep a tombstone (lead/admin) with { reason }
import { api, pathParams } from '@/lib/auth/guard';
import { decideDeadLetter, decisionInput, DECISIONS } from '@/lib/deadletters/decide';

export const POST = api(DECISIONS.discard.permission, { params: pathParams('id'), body: decisionInput }, async ({ actor, params, body }) => {
  return Response.json(await decideDeadLetter(actor, 'discard', params.id, body.reason));
});
