// PATCH /api/v1/webhooks/:id — change its URL or switch it on/off
// DELETE /api/v1/webhooks/:id — remove it (its delivery log goes with it; the audit trail stays)
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { deleteWebhook, updateWebhook } from '@/lib/notifications/webhooks';

type Params = { id: string };

export const PATCH = api<Params>('sources.policy', async (req, { actor, params }) =>
  Response.json({ webhook: await updateWebhook(actor, params.id, (await readJsonBody(req, 16 * 1024)) as never) }),
);

export const DELETE = api<Params>('sources.policy', async (_req, { actor, params }) => {
  await deleteWebhook(actor, params.id);
  return new Response(null, { status: 204 });
});
