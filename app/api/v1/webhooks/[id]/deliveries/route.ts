// GET /api/v1/webhooks/:id/deliveries — the webhook's delivery log, newest first
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { listDeliveries, DeliveryListView } from '@/lib/notifications/webhooks';

export const GET = jsonRoute(
  'sources.policy',
  async ({ actor, params }) => ({ deliveries: await listDeliveries(actor, { webhookId: params.id, limit: 100 }) }),
  {
    summary: "The webhook's delivery log, newest first (the latest 100)",
    tags: ['notifications'],
    responses: { 200: { description: 'The deliveries', view: DeliveryListView } },
    params: pathParams('id'),
  },
);
