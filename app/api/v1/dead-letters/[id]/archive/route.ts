// POST /api/v1/dead-letters/{id}/archive — archive one open dead letter (resolved on purpose, kept) with { reason }
import { jsonRoute } from '@/lib/auth/guard';
import { decideDeadLetter, DECISIONS } from '@/lib/deadletters/decide';
import { decisionRoute } from '@/lib/deadletters/route-shapes';

export const POST = jsonRoute(DECISIONS.archive.permission, ({ actor, params, body }) => decideDeadLetter(actor, 'archive', params.id, body.reason), {
  summary: 'Archive one dead letter (support, lead, admin)',
  ...decisionRoute,
  description: `Resolved on purpose; the dead letter and its payload are kept. Only open dead letters. ${decisionRoute.description}`,
});
