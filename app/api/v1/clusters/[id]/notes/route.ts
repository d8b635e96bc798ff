// POST /api/v1/clusters/{id}/notes — add { body } to the cluster's note thread; audited
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { addClusterNote, noteInput, ClusterNoteView } from '@/lib/ownership/ownership';

export const POST = jsonRoute('clusters.own', ({ actor, params, body }) => addClusterNote(actor, params.id, body), {
  summary: "Add a note to the cluster's thread (support, lead, admin)",
  tags: ['ownership'],
  responses: { 201: { description: 'The note', view: ClusterNoteView } },
  params: pathParams('id'),
  body: noteInput,
});
