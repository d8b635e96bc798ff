// GET /api/v1/sources/:source/policy — a source's policy (retention, deadline, retry budget), with warnings
// PATCH /api/v1/sources/:source/policy — change it (lead of the owning team, admin); audited
import { jsonRoute } from '@/lib/auth/guard';
import { sourceSettingChange, sourceSettingRoute } from '@/lib/sources/route-shapes';
import { getSourcePolicy, policyInput, updateSourcePolicy, PolicyReadView, PolicyAnswer } from '@/lib/sources/update-policy';

export const GET = jsonRoute('deadletters.read', ({ actor, params }) => getSourcePolicy(actor, params.source), {
  ...sourceSettingRoute,
  summary: "The source's policy (retention, age deadline, retry budget, redrive limits, rate alarm thresholds), with warnings",
  responses: { 200: { description: 'The policy', view: PolicyReadView } },
});

export const PATCH = jsonRoute(
  'sources.policy',
  async ({ actor, params, body }) => {
    const { source, warnings } = await updateSourcePolicy(actor, params.source, body);
    return { source, warnings };
  },
  {
    ...sourceSettingChange,
    summary: 'Change the policy (lead of the owning team, admin)',
    description:
      'Only the fields sent change. Refused (422) when the age deadline reaches the retention, when max receives × visibility timeout reaches it, or when the rate alarm threshold is not above its pending threshold. A new retention re-dates the expiry of open dead letters. Audited as source.policy.update with before and after.',
    responses: { 200: { description: 'Saved, with warnings', view: PolicyAnswer } },
    body: policyInput,
  },
);
