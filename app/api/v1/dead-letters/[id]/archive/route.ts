// POST /api/v1/dead-letters/{id}/archive — archive one open dead letter (resolved on purpose, kept) with { reason }
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { decideDeadLetter, decisionInput, DECISIONS } from '@/lib/deadletters/decide';

export const POST = api<{ id: string }>(DECISIONS.archive.permission, async (req, { actor, params }) => {
  const { reason } = decisionInput.parse(await readJsonBody(req));
  return Response.json(await decideDeadLetter(actor, 'archive', params.id, reason));
});
