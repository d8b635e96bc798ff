// GET /api/v1/webhooks/:id/deliveries — the webhook's delivery log, newest first
import { api } from '@/lib/auth/guard';
import { listDeliveries } from '@/lib/notifications/webhooks';

export const GET = api<{ id: string }>('sources.policy', async (_req, { actor, params }) =>
  Response.json({ deliveries: await listDeliveries(actor, { webhookId: params.id, limit: 100 }) }),
);
