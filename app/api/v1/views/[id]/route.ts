// GET /api/v1/views/:id — one view the caller sees (their own or their team's shared one; else 404)
// PATCH /api/v1/views/:id — rename, re-filter, share or unshare one's own view
// DELETE /api/v1/views/:id — delete one's own view
import { jsonRoute, noContentRoute, pathParams } from '@/lib/auth/guard';
import { deleteView, getView, updateView, updateViewInput } from '@/lib/saved-views';
import { OneSavedView } from '@/lib/saved-views/saved-views';

const params = pathParams('id');

export const GET = jsonRoute('views.manage', async ({ actor, params }) => ({ view: await getView(actor, params.id) }), {
  summary: 'One view',
  description: 'Only views the caller sees: their own and those shared with their team; any other id answers 404.',
  tags: ['views'],
  responses: { 200: { description: 'The view', view: OneSavedView } },
  params,
});

export const PATCH = jsonRoute('views.manage', async ({ actor, params, body }) => ({ view: await updateView(actor, params.id, body) }), {
  summary: "Rename, re-filter, share or unshare one's own view (audited view.update)",
  description: "A teammate's shared view: 403 (only its owner changes it).",
  tags: ['views'],
  responses: { 200: { description: 'The view now', view: OneSavedView } },
  errors: [409],
  params,
  body: updateViewInput,
  maxBytes: 16 * 1024,
});

export const DELETE = noContentRoute('views.manage', ({ actor, params }) => deleteView(actor, params.id), {
  summary: "Delete one's own view (audited view.delete)",
  tags: ['views'],
  responses: { 204: { description: 'Deleted' } },
  params,
});
