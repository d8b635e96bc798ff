// GET /api/v1/clusters/{id}/ownership — assignee, status, ticket, hold and note thread
// PATCH /api/v1/clusters/{id}/ownership — assign, set the status (on_hold needs note and holdUntil), ticket, fix version; audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { getOwnership, updateOwnership, type OwnershipInput } from '@/lib/ownership/ownership';

export const GET = api<{ id: string }>('deadletters.read', async (_req, { actor, params }) => Response.json(await getOwnership(actor, params.id)));

export const PATCH = api<{ id: string }>('clusters.own', async (req, { actor, params }) => {
  return Response.json(await updateOwnership(actor, params.id, (await readJsonBody(req)) as OwnershipInput));
});
