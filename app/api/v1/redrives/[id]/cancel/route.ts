// POST /api/v1/redrives/{id}/cancel — cancel a redrive task; what was sent stays sent, the rest is open again; body { reason? }
import { api } from '@/lib/auth/guard';
import { cancelRedrive, getRedriveTask, type RedriveCommandInput } from '@/lib/redrive';
import { commandBody } from '@/lib/redrive/http';

export const POST = api<{ id: string }>('deadletters.redrive', async (req, { actor, params }) => {
  await cancelRedrive(actor, params.id, (await commandBody(req)) as RedriveCommandInput);
  return Response.json(await getRedriveTask(actor, params.id));
});
