// GET /api/v1/redrives/{id}/series — sends and outcomes per second over the task's last 5 minutes of activity
import { api } from '@/lib/auth/guard';
import { redriveSeries } from '@/lib/redrive';

export const GET = api<{ id: string }>('deadletters.read', async (_req, { actor, params }) => {
  return Response.json({ points: await redriveSeries(actor, params.id) });
});
