// GET /api/v1/clusters/{id}/ownership — assignee, status, ticket, hold and note thread
// PATCH /api/v1/clusters/{id}/ownership — assign, set the status (on_hold needs note and holdUntil), ticket, fix version; audited
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { getOwnership, ownershipInput, updateOwnership, OwnershipWithNotes, Ownership } from '@/lib/ownership/ownership';

const params = pathParams('id');

export const GET = jsonRoute('deadletters.read', ({ actor, params }) => getOwnership(actor, params.id), {
  summary: "The cluster's ownership and note thread",
  tags: ['ownership'],
  responses: { 200: { description: 'Ownership and notes', view: OwnershipWithNotes } },
  params,
});

export const PATCH = jsonRoute('clusters.own', ({ actor, params, body }) => updateOwnership(actor, params.id, body), {
  summary: 'Assign, set the status, link a ticket (support, lead, admin)',
  description:
    'on_hold needs a note and a future holdUntil; the SLA clock keeps running. fixVersion goes with resolved. An assignment notifies the assignee team webhooks. Audited as cluster.own.',
  tags: ['ownership'],
  responses: { 200: { description: 'The ownership now', view: Ownership } },
  params,
  body: ownershipInput,
});
