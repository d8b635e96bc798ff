// POST /api/v1/redrives/{id}/approve — approve a redrive waiting for a lead (four eyes: not its starter); body { reason? }
import { api } from '@/lib/auth/guard';
import { approveRedrive, getRedriveTask } from '@/lib/redrive';
import { taskCommandRoute } from '@/lib/redrive/http';

export const POST = api(
  'redrive.approve',
  {
    summary: 'Approve (lead, admin)',
    description: 'Four eyes: never by the person who started it (403). Audited as redrive.approve.',
    ...taskCommandRoute,
  },
  async ({ actor, params, body }) => {
    await approveRedrive(actor, params.id, body);
    return Response.json(await getRedriveTask(actor, params.id));
  },
);
