// GET /api/v1/sources/:source/grouping-rules — the source's grouping rules and their version
// PUT /api/v1/sources/:source/grouping-rules — replace them, { rules, reason } (lead of the owning team, admin); applies to new dead letters; audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { getGroupingRules, setGroupingRules, type SetGroupingRulesInput } from '@/lib/clustering/set-grouping-rules';

type Params = { source: string };

export const GET = api<Params>('deadletters.read', async (_req, { actor, params }) => Response.json(await getGroupingRules(actor, params.source)));

export const PUT = api<Params>('sources.grouping', async (req, { actor, params }) => {
  return Response.json(await setGroupingRules(actor, params.source, (await readJsonBody(req, 16 * 1024)) as SetGroupingRulesInput));
});
