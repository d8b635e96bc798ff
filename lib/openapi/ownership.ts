// Ownership of a cause: a cluster's assignee, status, ticket, hold and note thread (lib/ownership).
// Response bodies are the views of lib/ownership (docs/style.md "Views").
import { ClusterNoteView, Ownership, OwnershipWithNotes, noteInput, ownershipInput } from '@/lib/ownership/ownership';
import { OWNERSHIP_STATUSES } from '@/lib/ownership/statuses';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const id = idParam('id', 'Cluster id');

export const ownershipArea: OpenApiArea = {
  tag: { name: 'ownership', description: `Who is on a cluster and why it waits: assignee, status (${OWNERSHIP_STATUSES.join(', ')}), ticket link, hold, notes.` },
  schemas: { ClusterOwnership: viewOf(Ownership) },
  paths: {
    '/api/v1/clusters/{id}/ownership': {
      get: {
        tags: ['ownership'],
        summary: "The cluster's ownership and note thread",
        security,
        parameters: [id],
        responses: { '200': { description: 'Ownership and notes', content: jsonContent(viewOf(OwnershipWithNotes)) }, ...errors(401, 403, 404) },
      },
      patch: {
        tags: ['ownership'],
        summary: 'Assign, set the status, link a ticket (support, lead, admin)',
        description: 'on_hold needs a note and a future holdUntil; the SLA clock keeps running. fixVersion goes with resolved. An assignment notifies the assignee team webhooks. Audited as cluster.own.',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(ownershipInput)) },
        responses: { '200': { description: 'The ownership now', content: jsonContent(ref('ClusterOwnership')) }, ...errors(401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/notes': {
      post: {
        tags: ['ownership'],
        summary: "Add a note to the cluster's thread (support, lead, admin)",
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(noteInput)) },
        responses: { '201': { description: 'The note', content: jsonContent(viewOf(ClusterNoteView)) }, ...errors(401, 403, 404, 415, 422) },
      },
    },
  },
};
