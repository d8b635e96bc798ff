// GET /api/v1/sources/:source/policy — a source's policy (retention, deadline, retry budget), with warnings
// PATCH /api/v1/sources/:source/policy — change it (lead of the owning team, admin); audited
import { api, pathParams } from '@/lib/auth/guard';
import { getSourcePolicy, policyInput, updateSourcePolicy } from '@/lib/sources/update-policy';

const params = pathParams('source');

export const GET = api('deadletters.read', { params }, async ({ actor, params }) => Response.json(await getSourcePolicy(actor, params.source)));

export const PATCH = api('sources.policy', { params, body: policyInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) => {
  const { source, warnings } = await updateSourcePolicy(actor, params.source, body);
  return Response.json({ source, warnings });
});
