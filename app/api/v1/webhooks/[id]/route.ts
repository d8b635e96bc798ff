// PATCH /api/v1/webhooks/:id — change its URL or switch it on/off
// DELETE /api/v1/webhooks/:id — remove it (its delivery log goes with it; the audit trail stays)
import { jsonRoute, noContentRoute, pathParams } from '@/lib/auth/guard';
import { deleteWebhook, updateWebhook, webhookPatch, OneWebhookView } from '@/lib/notifications/webhooks';

const params = pathParams('id');

export const PATCH = jsonRoute('sources.policy', async ({ actor, params, body }) => ({ webhook: await updateWebhook(actor, params.id, body) }), {
  summary: 'Change its URL or switch it on or off (lead, admin)',
  description: 'Audited as webhook.update with before and after.',
  tags: ['notifications'],
  responses: { 200: { description: 'The webhook', view: OneWebhookView } },
  errors: [400],
  params,
  body: webhookPatch,
  maxBytes: 16 * 1024,
});

export const DELETE = noContentRoute('sources.policy', ({ actor, params }) => deleteWebhook(actor, params.id), {
  summary: 'Remove it (lead, admin)',
  description: 'Its delivery log goes with it; the audit trail stays (webhook.delete).',
  tags: ['notifications'],
  responses: { 204: { description: 'Removed' } },
  params,
});
