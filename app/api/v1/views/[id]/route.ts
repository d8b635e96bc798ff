// GET /api/v1/views/:id — one view the caller sees (their own or their team's shared one; else 404)
// PATCH /api/v1/views/:id — rename, re-filter, share or unshare one's own view
// DELETE /api/v1/views/:id — delete one's own view
import { api, pathParams } from '@/lib/auth/guard';
import { deleteView, getView, updateView, updateViewInput } from '@/lib/views';

const params = pathParams('id');

export const GET = api('views.manage', { params }, async ({ actor, params }) => Response.json({ view: await getView(actor, params.id) }));

export const PATCH = api('views.manage', { params, body: updateViewInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) =>
  Response.json({ view: await updateView(actor, params.id, body) }),
);

export const DELETE = api('views.manage', { params }, async ({ actor, params }) => {
  await deleteView(actor, params.id);
  return new Response(null, { status: 204 });
});
