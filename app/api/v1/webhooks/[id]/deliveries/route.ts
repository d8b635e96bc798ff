// GET /api/v1/webhooks/:id/deliveries — the webhook's delivery log, newest first
import { api, pathParams } from '@/lib/auth/guard';
import { listDeliveries, DeliveryListView } from '@/lib/notifications/webhooks';

export const GET = api(
  'sources.policy',
  {
    summary: "The webhook's delivery log, newest first (the latest 100)",
    tags: ['notifications'],
    responses: { 200: { description: 'The deliveries', view: DeliveryListView } },
    params: pathParams('id'),
  },
  async ({ actor, params }) => Response.json({ deliveries: await listDeliveries(actor, { webhookId: params.id, limit: 100 }) }),
);
