// POST /api/v1/dead-letters/{id}/discard — discard one dead letter: delete its payload, keep a tombstone (lead/admin) with { reason }
import { jsonRoute } from '@/lib/auth/guard';
import { decideDeadLetter, DECISIONS } from '@/lib/deadletters/decide';
import { decisionRoute } from '@/lib/deadletters/route-shapes';

export const POST = jsonRoute(DECISIONS.discard.permission, ({ actor, params, body }) => decideDeadLetter(actor, 'discard', params.id, body.reason), {
  summary: 'Discard one dead letter (lead, admin)',
  ...decisionRoute,
  description: `The payload is deleted; the row stays as a tombstone with its size and SHA-256. ${decisionRoute.description}`,
});
