// POST /api/v1/redrives/{id}/pause — pause a running redrive task; body { reason? }
import { api } from '@/lib/auth/guard';
import { pauseRedrive, getRedriveTask, type RedriveCommandInput } from '@/lib/redrive';
import { commandBody } from '@/lib/redrive/http';

export const POST = api<{ id: string }>('deadletters.redrive', async (req, { actor, params }) => {
  await pauseRedrive(actor, params.id, (await commandBody(req)) as RedriveCommandInput);
  return Response.json(await getRedriveTask(actor, params.id));
});
