// GET /api/v1/webhooks — the webhooks of the teams the caller manages
// POST /api/v1/webhooks — add one ({ url, team? }); the signing secret is in this response only
import { jsonRoute } from '@/lib/auth/guard';
import { createWebhook, listWebhooks, webhookInput, WebhookListView, CreatedWebhookView } from '@/lib/notifications/webhooks';

export const GET = jsonRoute('sources.policy', async ({ actor }) => ({ webhooks: await listWebhooks(actor) }), {
  summary: 'List the webhooks of the teams the caller manages (lead, admin)',
  tags: ['notifications'],
  responses: { 200: { description: 'The webhooks', view: WebhookListView } },
});

export const POST = jsonRoute(
  'sources.policy',
  async ({ actor, body }) => {
    const { webhook, secret } = await createWebhook(actor, body);
    return { webhook, secret };
  },
  {
    summary: 'Add a webhook (lead, admin)',
    description: "A lead's webhook is for their own team; an admin names the team. The signing secret is in this answer only. Audited as webhook.create.",
    tags: ['notifications'],
    responses: { 201: { description: 'Created', view: CreatedWebhookView } },
    errors: [400],
    body: webhookInput,
    maxBytes: 16 * 1024,
  },
);
