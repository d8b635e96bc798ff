// PATCH /api/v1/webhooks/:id — change its URL or switch it on/off
// DELETE /api/v1/webhooks/:id — remove it (its delivery log goes with it; the audit trail stays)
import { api, pathParams } from '@/lib/auth/guard';
import { deleteWebhook, updateWebhook, webhookPatch } from '@/lib/notifications/webhooks';

const params = pathParams('id');

export const PATCH = api('sources.policy', { params, body: webhookPatch, maxBytes: 16 * 1024 }, async ({ actor, params, body }) =>
  Response.json({ webhook: await updateWebhook(actor, params.id, body) }),
);

export const DELETE = api('sources.policy', { params }, async ({ actor, params }) => {
  await deleteWebhook(actor, params.id);
  return new Response(null, { status: 204 });
});
