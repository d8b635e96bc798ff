// GET /api/v1/views/:id — one view the caller sees (their own or their team's shared one; else 404)
// PATCH /api/v1/views/:id — rename, re-filter, share or unshare one's own view
// DELETE /api/v1/views/:id — delete one's own view
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { deleteView, getView, updateView } from '@/lib/views';

type Params = { id: string };

export const GET = api<Params>('views.manage', async (_req, { actor, params }) => Response.json({ view: await getView(actor, params.id) }));

export const PATCH = api<Params>('views.manage', async (req, { actor, params }) =>
  Response.json({ view: await updateView(actor, params.id, (await readJsonBody(req, 16 * 1024)) as never) }),
);

export const DELETE = api<Params>('views.manage', async (_req, { actor, params }) => {
  await deleteView(actor, params.id);
  return new Response(null, { status: 204 });
});
