// GET /api/v1/sources/:source/policy — a source's policy (retention, deadline, retry budget), with warnings
// PATCH /api/v1/sources/:source/policy — change it (lead of the owning team, admin); audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { getSourcePolicy, updateSourcePolicy, type PolicyInput } from '@/lib/sources/update-policy';

type Params = { source: string };

export const GET = api<Params>('deadletters.read', async (_req, { actor, params }) => Response.json(await getSourcePolicy(actor, params.source)));

export const PATCH = api<Params>('sources.policy', async (req, { actor, params }) => {
  const { source, warnings } = await updateSourcePolicy(actor, params.source, (await readJsonBody(req, 16 * 1024)) as PolicyInput);
  return Response.json({ source, warnings });
});
