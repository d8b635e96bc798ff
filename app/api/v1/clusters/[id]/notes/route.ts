// POST /api/v1/clusters/{id}/notes — add { body } to the cluster's note thread; audited
import { api, pathParams } from '@/lib/auth/guard';
import { addClusterNote, noteInput, ClusterNoteView } from '@/lib/ownership/ownership';

export const POST = api(
  'clusters.own',
  {
    summary: "Add a note to the cluster's thread (support, lead, admin)",
    tags: ['ownership'],
    responses: { 201: { description: 'The note', view: ClusterNoteView } },
    params: pathParams('id'),
    body: noteInput,
  },
  async ({ actor, params, body }) => {
    return Response.json(await addClusterNote(actor, params.id, body), { status: 201 });
  },
);
