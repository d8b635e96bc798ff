// GET /api/v1/redrives/{id}/series — sends and outcomes per second over the task's last 5 minutes of activity
import { api, pathParams } from '@/lib/auth/guard';
import { redriveSeries } from '@/lib/redrive';

export const GET = api('deadletters.read', { params: pathParams('id') }, async ({ actor, params }) => {
  return Response.json({ points: await redriveSeries(actor, params.id) });
});
