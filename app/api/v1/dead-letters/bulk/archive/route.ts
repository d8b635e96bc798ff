// POST /api/v1/dead-letters/bulk/archive — archive every eligible dead letter of { selection: { ids } | { filter }, reason }: one transaction, one audit event
import { familyRoute } from '@/lib/auth/guard';
import { DECISIONS } from '@/lib/deadletters/decide';
import { answerBulkDecision, bulkDecisionRoute } from '@/lib/deadletters/route-shapes';

export const POST = familyRoute(bulkDecisionRoute, DECISIONS.archive.permission, answerBulkDecision('archive'), {
  summary: 'Archive a selection (support, lead, admin)',
});
