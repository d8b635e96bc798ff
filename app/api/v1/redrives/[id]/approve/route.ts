// POST /api/v1/redrives/{id}/approve — approve a redrive waiting for a lead (four eyes: not its starter); body { reason? }
import { api } from '@/lib/auth/guard';
import { approveRedrive, getRedriveTask, type RedriveCommandInput } from '@/lib/redrive';
import { commandBody } from '@/lib/redrive/http';

export const POST = api<{ id: string }>('redrive.approve', async (req, { actor, params }) => {
  await approveRedrive(actor, params.id, (await commandBody(req)) as RedriveCommandInput);
  return Response.json(await getRedriveTask(actor, params.id));
});
