// GET /api/v1/sources/:source/redrive-rules — the source's redrive rules, with their state and last run
// POST /api/v1/sources/:source/redrive-rules — create one (a lead of the source's team, an admin); audited
import { api, pathParams } from '@/lib/auth/guard';
import { createRedriveRule, createRuleInput, listRedriveRules } from '@/lib/redrive-rules';

const params = pathParams('source');

export const GET = api('deadletters.read', { params }, async ({ actor, params }) => Response.json({ rules: await listRedriveRules(actor, params.source) }));

export const POST = api('redrive.rules', { params, body: createRuleInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) =>
  Response.json(await createRedriveRule(actor, params.source, body), { status: 201 }),
);
