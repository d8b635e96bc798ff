// GET /api/v1/sources/:source/redrive-rules — the source's redrive rules, with their state and last run
// POST /api/v1/sources/:source/redrive-rules — create one (a lead of the source's team, an admin); audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { createRedriveRule, listRedriveRules, type CreateRuleInput } from '@/lib/redrive-rules';

type Params = { source: string };

export const GET = api<Params>('deadletters.read', async (_req, { actor, params }) => Response.json({ rules: await listRedriveRules(actor, params.source) }));

export const POST = api<Params>('redrive.rules', async (req, { actor, params }) =>
  Response.json(await createRedriveRule(actor, params.source, (await readJsonBody(req, 16 * 1024)) as CreateRuleInput), { status: 201 }),
);
