// POST /api/v1/redrives/{id}/cancel — cancel a redrive task; what was sent stays sent, the rest is open again; body { reason? }
import { familyRoute } from '@/lib/auth/guard';
import { cancelRedrive } from '@/lib/redrive';
import { answerTask, taskCommandRoute } from '@/lib/redrive/route-shapes';

export const POST = familyRoute(taskCommandRoute, 'deadletters.redrive', answerTask(cancelRedrive), {
  summary: 'Cancel (support, lead, admin)',
  description: 'What was sent stays sent; the rest is open again. Audited as redrive.cancel.',
});
