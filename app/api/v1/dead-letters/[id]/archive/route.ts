// POST /api/v1/dead-letters/{id}/archive — archive one open dead letter (resolved on purpose, kept) with { reason }
import { api } from '@/lib/auth/guard';
import { decideDeadLetter, DECISIONS } from '@/lib/deadletters/decide';
import { decisionRoute } from '@/lib/deadletters/http';

export const POST = api(
  DECISIONS.archive.permission,
  {
    summary: 'Archive one dead letter (support, lead, admin)',
    ...decisionRoute,
    description: `Resolved on purpose; the dead letter and its payload are kept. Only open dead letters. ${decisionRoute.description}`,
  },
  async ({ actor, params, body }) => {
    return Response.json(await decideDeadLetter(actor, 'archive', params.id, body.reason));
  },
);
