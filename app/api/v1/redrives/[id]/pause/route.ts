// POST /api/v1/redrives/{id}/pause — pause a running redrive task; body { reason? }
import { api } from '@/lib/auth/guard';
import { pauseRedrive, getRedriveTask } from '@/lib/redrive';
import { taskCommandRoute } from '@/lib/redrive/http';

export const POST = api(
  'deadletters.redrive',
  {
    summary: 'Pause (support, lead, admin)',
    description: 'Stops sending within the status poll (well under 2 s). Audited as redrive.pause.',
    ...taskCommandRoute,
  },
  async ({ actor, params, body }) => {
    await pauseRedrive(actor, params.id, body);
    return Response.json(await getRedriveTask(actor, params.id));
  },
);
