// GET /api/v1/sources/:source/grouping-rules/reapply — the latest re-application of the rules and its progress
// POST /api/v1/sources/:source/grouping-rules/reapply — re-apply the rules to the open dead letters in batches, { reason } (lead, admin); audited
import { jsonRoute } from '@/lib/auth/guard';
import { sourceSettingChange, sourceSettingRoute } from '@/lib/sources/route-shapes';
import { latestRegroup, startRegroup, startRegroupInput, LatestRegroupView, RegroupRunView } from '@/lib/clustering/regroup';

export const GET = jsonRoute('deadletters.read', async ({ actor, params }) => ({ run: await latestRegroup(actor, params.source) }), {
  ...sourceSettingRoute,
  summary: 'The latest re-application of the rules, with its progress',
  responses: { 200: { description: 'The run, or null', view: LatestRegroupView } },
});

export const POST = jsonRoute('sources.grouping', ({ actor, params, body }) => startRegroup(actor, params.source, body), {
  ...sourceSettingChange,
  summary: 'Re-apply the rules to the open dead letters (lead of the owning team, admin)',
  description:
    'Runs in the maintenance worker, in batches of 500, each its own transaction; progress (done of total, moved) is kept. A change of rules supersedes a running re-application. Audited as source.regroup.',
  responses: { 202: { description: 'Started', view: RegroupRunView } },
  body: startRegroupInput,
});
