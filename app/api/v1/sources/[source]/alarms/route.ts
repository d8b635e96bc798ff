// GET /api/v1/sources/:source/alarms — the source's alarm states and recent transitions
import { api, pathParams } from '@/lib/auth/guard';
import { sourceAlarms, SourceAlarmsView } from '@/lib/alarms/list-alarms';

export const GET = api(
  'deadletters.read',
  {
    summary: "The source's alarm states (depth, age, rate) and recent transitions",
    tags: ['sources'],
    responses: { 200: { description: 'The alarms', view: SourceAlarmsView } },
    params: pathParams('source'),
  },
  async ({ actor, params }) => {
    const { source, states, events } = await sourceAlarms(actor, params.source);
    return Response.json({ source: { id: source.id, name: source.name }, states, events });
  },
);
