// GET /api/v1/webhooks — the webhooks of the teams the caller manages
// POST /api/v1/webhooks — add one ({ url, team? }); the signing secret is in this response only
import { api } from '@/lib/auth/guard';
import { createWebhook, listWebhooks, webhookInput } from '@/lib/notifications/webhooks';

export const GET = api('sources.policy', {}, async ({ actor }) => Response.json({ webhooks: await listWebhooks(actor) }));

export const POST = api('sources.policy', { body: webhookInput, maxBytes: 16 * 1024 }, async ({ actor, body }) => {
  const { webhook, secret } = await createWebhook(actor, body);
  return Response.json({ webhook, secret }, { status: 201 });
});
