// POST /api/v1/redrives/{id}/resume — resume a paused redrive task (a canary task sends a canary first again); body { reason? }
import { api } from '@/lib/auth/guard';
import { resumeRedrive, getRedriveTask } from '@/lib/redrive';
import { taskCommandRoute } from '@/lib/redrive/http';

export const POST = api(
  'deadletters.redrive',
  {
    summary: 'Resume (support, lead, admin)',
    description: 'Continues at the task rate; a canary task sends a canary first again. Audited as redrive.resume.',
    ...taskCommandRoute,
  },
  async ({ actor, params, body }) => {
    await resumeRedrive(actor, params.id, body);
    return Response.json(await getRedriveTask(actor, params.id));
  },
);
