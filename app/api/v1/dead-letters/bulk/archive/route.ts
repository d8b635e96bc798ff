// POST /api/v1/dead-letters/bulk/archive — archive every eligible dead letter of { selection: { ids } | { filter }, reason }: one transaction, one audit event
import { api } from '@/lib/auth/guard';
import { decideSelection, DECISIONS } from '@/lib/deadletters/decide';
import { bulkDecisionRoute } from '@/lib/deadletters/http';

export const POST = api(
  DECISIONS.archive.permission,
  {
    summary: 'Archive a selection (support, lead, admin)',
    ...bulkDecisionRoute,
  },
  async ({ actor, body }) => {
    return Response.json(await decideSelection(actor, 'archive', body.selection, body.reason));
  },
);
