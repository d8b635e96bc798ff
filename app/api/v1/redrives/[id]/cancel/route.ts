// POST /api/v1/redrives/{id}/cancel — cancel a redrive task; what was sent stays sent, the rest is open again; body { reason? }
import { api } from '@/lib/auth/guard';
import { cancelRedrive, getRedriveTask } from '@/lib/redrive';
import { taskCommandRoute } from '@/lib/redrive/http';

export const POST = api(
  'deadletters.redrive',
  {
    summary: 'Cancel (support, lead, admin)',
    description: 'What was sent stays sent; the rest is open again. Audited as redrive.cancel.',
    ...taskCommandRoute,
  },
  async ({ actor, params, body }) => {
    await cancelRedrive(actor, params.id, body);
    return Response.json(await getRedriveTask(actor, params.id));
  },
);
