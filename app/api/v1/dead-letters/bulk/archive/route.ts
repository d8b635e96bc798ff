// POST /api/v1/dead-letters/bulk/archive — archive every eligible dead letter of { selection: { ids } | { filter }, reason }: one transaction, one audit event
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { bulkDecisionInput, decideSelection, DECISIONS } from '@/lib/deadletters/decide';

export const POST = api(DECISIONS.archive.permission, async (req, { actor }) => {
  const { selection, reason } = bulkDecisionInput.parse(await readJsonBody(req));
  return Response.json(await decideSelection(actor, 'archive', selection, reason));
});
