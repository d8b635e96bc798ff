// GET /api/v1/redrives/{id}/series — sends and outcomes per second over the task's last 5 minutes of activity
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { redriveSeries, RedriveSeriesView } from '@/lib/redrive';

export const GET = jsonRoute('deadletters.read', async ({ actor, params }) => ({ points: await redriveSeries(actor, params.id) }), {
  summary: 'Sends and outcomes per second (the rate chart)',
  tags: ['redrives'],
  responses: { 200: { description: 'Points, oldest first', view: RedriveSeriesView } },
  params: pathParams('id'),
});
