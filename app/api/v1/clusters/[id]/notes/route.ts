// POST /api/v1/clusters/{id}/notes — add { body } to the cluster's note thread; audited
import { api, pathParams } from '@/lib/auth/guard';
import { addClusterNote, noteInput } from '@/lib/ownership/ownership';

export const POST = api('clusters.own', { params: pathParams('id'), body: noteInput }, async ({ actor, params, body }) => {
  return Response.json(await addClusterNote(actor, params.id, body), { status: 201 });
});
