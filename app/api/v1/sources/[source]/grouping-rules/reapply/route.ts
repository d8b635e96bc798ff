// GET /api/v1/sources/:source/grouping-rules/reapply — the latest re-application of the rules and its progress
// POST /api/v1/sources/:source/grouping-rules/reapply — re-apply the rules to the open dead letters in batches, { reason } (lead, admin); audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { latestRegroup, startRegroup, type StartRegroupInput } from '@/lib/clustering/regroup';

type Params = { source: string };

export const GET = api<Params>('deadletters.read', async (_req, { actor, params }) => Response.json({ run: await latestRegroup(actor, params.source) }));

export const POST = api<Params>('sources.grouping', async (req, { actor, params }) => {
  return Response.json(await startRegroup(actor, params.source, (await readJsonBody(req, 16 * 1024)) as StartRegroupInput), { status: 202 });
});
