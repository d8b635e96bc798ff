// GET /api/v1/sources/:source/grouping-rules — the source's grouping rules and their version
// PUT /api/v1/sources/:source/grouping-rules — replace them, { rules, reason } (lead of the owning team, admin); applies to new dead letters; audited
import { api, pathParams } from '@/lib/auth/guard';
import { getGroupingRules, setGroupingRules, setGroupingRulesInput } from '@/lib/clustering/set-grouping-rules';

const params = pathParams('source');

export const GET = api('deadletters.read', { params }, async ({ actor, params }) => Response.json(await getGroupingRules(actor, params.source)));

export const PUT = api('sources.grouping', { params, body: setGroupingRulesInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) => {
  return Response.json(await setGroupingRules(actor, params.source, body));
});
