// POST /api/v1/dead-letters/bulk/archive — archive every eligible dead letter of { selection: { ids } | { filter }, reason }: one transaction, one audit event
import { api } from '@/lib/auth/guard';
import { bulkDecisionInput, decideSelection, DECISIONS } from '@/lib/deadletters/decide';

export const POST = api(DECISIONS.archive.permission, { body: bulkDecisionInput }, async ({ actor, body }) => {
  return Response.json(await decideSelection(actor, 'archive', body.selection, body.reason));
});
