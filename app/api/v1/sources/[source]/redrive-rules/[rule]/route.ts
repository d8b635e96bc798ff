// PATCH /api/v1/sources/:source/redrive-rules/:rule — change, enable or disable a rule; audited
// DELETE /api/v1/sources/:source/redrive-rules/:rule — delete it; audited
import { jsonRoute, noContentRoute, pathParams } from '@/lib/auth/guard';
import { deleteRedriveRule, updateRedriveRule, updateRuleInput } from '@/lib/redrive-rules';
import { RedriveRuleView } from '@/lib/redrive-rules/rules';

const params = pathParams('source', 'rule');

export const PATCH = jsonRoute('redrive.rules', ({ actor, params, body }) => updateRedriveRule(actor, params.source, params.rule, body), {
  summary: 'Change, enable or disable a redrive rule (lead of the owning team, admin)',
  description: 'Only the fields sent change. Enabling clears why it was disabled. Audited as redrive_rule.enable, redrive_rule.disable or redrive_rule.update.',
  tags: ['sources'],
  responses: { 200: { description: 'Saved', view: RedriveRuleView } },
  errors: [400, 409],
  params,
  body: updateRuleInput,
  maxBytes: 16 * 1024,
});

export const DELETE = noContentRoute('redrive.rules', ({ actor, params }) => deleteRedriveRule(actor, params.source, params.rule), {
  summary: 'Delete a redrive rule (lead of the owning team, admin)',
  description: 'The tasks it started stay; their redrive.start audit events keep its name. Audited as redrive_rule.delete.',
  tags: ['sources'],
  responses: { 204: { description: 'Deleted' } },
  params,
});
