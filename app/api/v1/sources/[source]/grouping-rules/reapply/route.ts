// GET /api/v1/sources/:source/grouping-rules/reapply — the latest re-application of the rules and its progress
// POST /api/v1/sources/:source/grouping-rules/reapply — re-apply the rules to the open dead letters in batches, { reason } (lead, admin); audited
import { api, pathParams } from '@/lib/auth/guard';
import { latestRegroup, startRegroup, startRegroupInput } from '@/lib/clustering/regroup';

const params = pathParams('source');

export const GET = api('deadletters.read', { params }, async ({ actor, params }) => Response.json({ run: await latestRegroup(actor, params.source) }));

export const POST = api('sources.grouping', { params, body: startRegroupInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) => {
  return Response.json(await startRegroup(actor, params.source, body), { status: 202 });
});
