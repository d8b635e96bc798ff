// GET /api/v1/sources/:source/alarms — the source's alarm states and recent transitions
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { sourceAlarms, SourceAlarmsView } from '@/lib/alarms/list-alarms';

export const GET = jsonRoute(
  'deadletters.read',
  async ({ actor, params }) => {
    const { source, states, events } = await sourceAlarms(actor, params.source);
    return { source: { id: source.id, name: source.name }, states, events };
  },
  {
    summary: "The source's alarm states (depth, age, rate) and recent transitions",
    tags: ['sources'],
    responses: { 200: { description: 'The alarms', view: SourceAlarmsView } },
    params: pathParams('source'),
  },
);
