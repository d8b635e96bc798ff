// GET /api/v1/clusters/{id}/ownership — assignee, status, ticket, hold and note thread
// PATCH /api/v1/clusters/{id}/ownership — assign, set the status (on_hold needs note and holdUntil), ticket, fix version; audited
import { api, pathParams } from '@/lib/auth/guard';
import { getOwnership, ownershipInput, updateOwnership } from '@/lib/ownership/ownership';

const params = pathParams('id');

export const GET = api('deadletters.read', { params }, async ({ actor, params }) => Response.json(await getOwnership(actor, params.id)));

export const PATCH = api('clusters.own', { params, body: ownershipInput }, async ({ actor, params, body }) => {
  return Response.json(await updateOwnership(actor, params.id, body));
});
