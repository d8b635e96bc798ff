// GET /api/v1/webhooks/:id/deliveries — the webhook's delivery log, newest first
import { api, pathParams } from '@/lib/auth/guard';
import { listDeliveries } from '@/lib/notifications/webhooks';

export const GET = api('sources.policy', { params: pathParams('id') }, async ({ actor, params }) =>
  Response.json({ deliveries: await listDeliveries(actor, { webhookId: params.id, limit: 100 }) }),
);
