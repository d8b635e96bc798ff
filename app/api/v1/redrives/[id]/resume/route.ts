// POST /api/v1/redrives/{id}/resume — resume a paused redrive task (a canary task sends a canary first again); body { reason? }
import { api } from '@/lib/auth/guard';
import { resumeRedrive, getRedriveTask, type RedriveCommandInput } from '@/lib/redrive';
import { commandBody } from '@/lib/redrive/http';

export const POST = api<{ id: string }>('deadletters.redrive', async (req, { actor, params }) => {
  await resumeRedrive(actor, params.id, (await commandBody(req)) as RedriveCommandInput);
  return Response.json(await getRedriveTask(actor, params.id));
});
