// GET /api/v1/sources/:source/redrive-rules — the source's redrive rules, with their state and last run
// POST /api/v1/sources/:source/redrive-rules — create one (a lead of the source's team, an admin); audited
import { jsonRoute } from '@/lib/auth/guard';
import { sourceSettingChange, sourceSettingRoute } from '@/lib/sources/route-shapes';
import { createRedriveRule, createRuleInput, listRedriveRules } from '@/lib/redrive-rules';
import { RedriveRuleListView, RedriveRuleView } from '@/lib/redrive-rules/rules';

export const GET = jsonRoute('deadletters.read', async ({ actor, params }) => ({ rules: await listRedriveRules(actor, params.source) }), {
  ...sourceSettingRoute,
  summary: "The source's redrive rules, with their state, last run and the task they started",
  responses: { 200: { description: 'The rules', view: RedriveRuleListView } },
});

export const POST = jsonRoute('redrive.rules', ({ actor, params, body }) => createRedriveRule(actor, params.source, body), {
  ...sourceSettingChange,
  summary: 'Create a redrive rule (lead of the owning team, admin)',
  description:
    'A rule only starts an ordinary redrive task (rate, canary, circuit breaker, outcome window and four eyes apply) for its author, with the rule named on the task; it waits while the source has an active task, starts once per trigger, and disables itself when its task trips the breaker. Audited as redrive_rule.create.',
  responses: { 201: { description: 'Created', view: RedriveRuleView } },
  errors: [400, 409],
  body: createRuleInput,
});
