// POST /api/v1/webhooks/:id/test — queue a test message; its outcome shows in the delivery log
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { sendTestWebhook, TestWebhookView } from '@/lib/notifications/webhooks';

export const POST = jsonRoute('sources.policy', ({ actor, params }) => sendTestWebhook(actor, params.id), {
  summary: 'Queue a test message (lead, admin)',
  description: 'Sent whether the webhook is enabled or not; the outcome shows in the delivery log. Audited as webhook.test.',
  tags: ['notifications'],
  responses: { 202: { description: 'Queued', view: TestWebhookView } },
  params: pathParams('id'),
});
