// POST /api/v1/webhooks/:id/test — queue a test message; its outcome shows in the delivery log
import { api, pathParams } from '@/lib/auth/guard';
import { sendTestWebhook } from '@/lib/notifications/webhooks';

export const POST = api('sources.policy', { params: pathParams('id') }, async ({ actor, params }) =>
  Response.json(await sendTestWebhook(actor, params.id), { status: 202 }),
);
