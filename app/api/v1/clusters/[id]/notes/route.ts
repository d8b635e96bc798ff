// POST /api/v1/clusters/{id}/notes — add { body } to the cluster's note thread; audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { addClusterNote } from '@/lib/ownership/ownership';

export const POST = api<{ id: string }>('clusters.own', async (req, { actor, params }) => {
  return Response.json(await addClusterNote(actor, params.id, (await readJsonBody(req)) as { body: string }), { status: 201 });
});
