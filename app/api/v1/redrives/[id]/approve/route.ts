// POST /api/v1/redrives/{id}/approve — approve a redrive waiting for a lead (four eyes: not its starter); body { reason? }
import { familyRoute } from '@/lib/auth/guard';
import { approveRedrive } from '@/lib/redrive';
import { answerTask, taskCommandRoute } from '@/lib/redrive/route-shapes';

export const POST = familyRoute(taskCommandRoute, 'redrive.approve', answerTask(approveRedrive), {
  summary: 'Approve (lead, admin)',
  description: 'Four eyes: never by the person who started it (403). Audited as redrive.approve.',
});
