// POST /api/v1/redrives/{id}/resume — resume a paused redrive task (a canary task sends a canary first again); body { reason? }
import { familyRoute } from '@/lib/auth/guard';
import { resumeRedrive } from '@/lib/redrive';
import { answerTask, taskCommandRoute } from '@/lib/redrive/route-shapes';

export const POST = familyRoute(taskCommandRoute, 'deadletters.redrive', answerTask(resumeRedrive), {
  summary: 'Resume (support, lead, admin)',
  description: 'Continues at the task rate; a canary task sends a canary first again. Audited as redrive.resume.',
});
