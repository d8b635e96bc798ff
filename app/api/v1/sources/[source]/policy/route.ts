// GET /api/v1/sources/:source/policy — a source's policy (retention, deadline, retry budget), with warnings
// PATCH /api/v1/sources/:source/policy — change it (lead of the owning team, admin); audited
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { getSourcePolicy, policyInput, updateSourcePolicy, PolicyReadView, PolicyAnswer } from '@/lib/sources/update-policy';

const params = pathParams('source');

export const GET = jsonRoute('deadletters.read', ({ actor, params }) => getSourcePolicy(actor, params.source), {
  summary: "The source's policy (retention, age deadline, retry budget, redrive limits, rate alarm thresholds), with warnings",
  tags: ['sources'],
  responses: { 200: { description: 'The policy', view: PolicyReadView } },
  params,
});

export const PATCH = jsonRoute(
  'sources.policy',
  async ({ actor, params, body }) => {
    const { source, warnings } = await updateSourcePolicy(actor, params.source, body);
    return { source, warnings };
  },
  {
    summary: 'Change the policy (lead of the owning team, admin)',
    description:
      'Only the fields sent change. Refused (422) when the age deadline reaches the retention, when max receives × visibility timeout reaches it, or when the rate alarm threshold is not above its pending threshold. A new retention re-dates the expiry of open dead letters. Audited as source.policy.update with before and after.',
    tags: ['sources'],
    responses: { 200: { description: 'Saved, with warnings', view: PolicyAnswer } },
    errors: [400],
    params,
    body: policyInput,
    maxBytes: 16 * 1024,
  },
);
