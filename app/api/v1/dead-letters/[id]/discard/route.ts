// POST /api/v1/dead-letters/{id}/discard — discard one dead letter: delete its payload, keep a tombstone (lead/admin) with { reason }
import { api } from '@/lib/auth/guard';
import { decideDeadLetter, DECISIONS } from '@/lib/deadletters/decide';
import { decisionRoute } from '@/lib/deadletters/http';

export const POST = api(
  DECISIONS.discard.permission,
  {
    summary: 'Discard one dead letter (lead, admin)',
    ...decisionRoute,
    description: `The payload is deleted; the row stays as a tombstone with its size and SHA-256. ${decisionRoute.description}`,
  },
  async ({ actor, params, body }) => {
    return Response.json(await decideDeadLetter(actor, 'discard', params.id, body.reason));
  },
);
