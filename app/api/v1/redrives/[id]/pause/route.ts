// POST /api/v1/redrives/{id}/pause — pause a running redrive task; body { reason? }
import { familyRoute } from '@/lib/auth/guard';
import { pauseRedrive } from '@/lib/redrive';
import { answerTask, taskCommandRoute } from '@/lib/redrive/route-shapes';

export const POST = familyRoute(taskCommandRoute, 'deadletters.redrive', answerTask(pauseRedrive), {
  summary: 'Pause (support, lead, admin)',
  description: 'Stops sending within the status poll (well under 2 s). Audited as redrive.pause.',
});
