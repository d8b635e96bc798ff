// GET /api/v1/sources/:source/alarms — the source's alarm states and recent transitions
import { api } from '@/lib/auth/guard';
import { sourceAlarms } from '@/lib/alarms/list-alarms';

export const GET = api<{ source: string }>('deadletters.read', async (_req, { actor, params }) => {
  const { source, states, events } = await sourceAlarms(actor, params.source);
  return Response.json({ source: { id: source.id, name: source.name }, states, events });
});
