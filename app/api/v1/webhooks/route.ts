// GET /api/v1/webhooks — the webhooks of the teams the caller manages
// POST /api/v1/webhooks — add one ({ url, team? }); the signing secret is in this response only
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { createWebhook, listWebhooks } from '@/lib/notifications/webhooks';

export const GET = api('sources.policy', async (_req, { actor }) => Response.json({ webhooks: await listWebhooks(actor) }));

export const POST = api('sources.policy', async (req, { actor }) => {
  const { webhook, secret } = await createWebhook(actor, (await readJsonBody(req, 16 * 1024)) as never);
  return Response.json({ webhook, secret }, { status: 201 });
});
