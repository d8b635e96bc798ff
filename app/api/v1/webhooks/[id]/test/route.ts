// POST /api/v1/webhooks/:id/test — queue a test message; its outcome shows in the delivery log
import { api } from '@/lib/auth/guard';
import { sendTestWebhook } from '@/lib/notifications/webhooks';

export const POST = api<{ id: string }>('sources.policy', async (_req, { actor, params }) =>
  Response.json(await sendTestWebhook(actor, params.id), { status: 202 }),
);
