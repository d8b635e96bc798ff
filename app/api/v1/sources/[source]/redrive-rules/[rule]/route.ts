// PATCH /api/v1/sources/:source/redrive-rules/:rule — change, enable or disable a rule; audited
// DELETE /api/v1/sources/:source/redrive-rules/:rule — delete it; audited
import { api, pathParams } from '@/lib/auth/guard';
import { deleteRedriveRule, updateRedriveRule, updateRuleInput } from '@/lib/redrive-rules';

const params = pathParams('source', 'rule');

export const PATCH = api('redrive.rules', { params, body: updateRuleInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) =>
  Response.json(await updateRedriveRule(actor, params.source, params.rule, body)),
);

export const DELETE = api('redrive.rules', { params }, async ({ actor, params }) => {
  await deleteRedriveRule(actor, params.source, params.rule);
  return new Response(null, { status: 204 });
});
