// POST /api/v1/dead-letters/{id}/archive — archive one open dead letter (resolved on purpose, kept) with { reason }
import { api, pathParams } from '@/lib/auth/guard';
import { decideDeadLetter, decisionInput, DECISIONS } from '@/lib/deadletters/decide';

export const POST = api(DECISIONS.archive.permission, { params: pathParams('id'), body: decisionInput }, async ({ actor, params, body }) => {
  return Response.json(await decideDeadLetter(actor, 'archive', params.id, body.reason));
});
