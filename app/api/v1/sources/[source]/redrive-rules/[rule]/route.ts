// PATCH /api/v1/sources/:source/redrive-rules/:rule — change, enable or disable a rule; audited
// DELETE /api/v1/sources/:source/redrive-rules/:rule — delete it; audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { deleteRedriveRule, updateRedriveRule, type UpdateRuleInput } from '@/lib/redrive-rules';

type Params = { source: string; rule: string };

export const PATCH = api<Params>('redrive.rules', async (req, { actor, params }) =>
  Response.json(await updateRedriveRule(actor, params.source, params.rule, (await readJsonBody(req, 16 * 1024)) as UpdateRuleInput)),
);

export const DELETE = api<Params>('redrive.rules', async (_req, { actor, params }) => {
  await deleteRedriveRule(actor, params.source, params.rule);
  return new Response(null, { status: 204 });
});
