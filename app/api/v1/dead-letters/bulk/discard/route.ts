// POST /api/v1/dead-letters/bulk/discard — discard every eligible dead letter of { selection: { ids } | { filter }, reason }: one transaction, one audit event
import { api } from '@/lib/auth/guard';
import { decideSelection, DECISIONS } from '@/lib/deadletters/decide';
import { bulkDecisionRoute } from '@/lib/deadletters/http';

export const POST = api(
  DECISIONS.discard.permission,
  {
    summary: 'Discard a selection (lead, admin)',
    ...bulkDecisionRoute,
  },
  async ({ actor, body }) => {
    return Response.json(await decideSelection(actor, 'discard', body.selection, body.reason));
  },
);
