// GET /api/v1/views/:id — one view the caller sees (their own or their team's shared one; else 404)
// PATCH /api/v1/views/:id — rename, re-filter, share or unshare one's own view
// DELETE /api/v1/views/:id — delete one's own view
import { jsonRoute, noContentRoute, pathParams } from '@/lib/auth/guard';
import { deleteView, getView, updateView, updateViewInput } from '@/lib/saved-views';
import { OneSavedView } from '@/lib/saved-views/saved-views';

// The three routes of one saved view: its tag and the id from the path.
const oneView = { tags: ['views'], params: pathParams('id') };

export const GET = jsonRoute('views.manage', async ({ actor, params }) => ({ view: await getView(actor, params.id) }), {
  ...oneView,
  summary: 'One view',
  description: 'Only views the caller sees: their own and those shared with their team; any other id answers 404.',
  responses: { 200: { description: 'The view', view: OneSavedView } },
});

export const PATCH = jsonRoute('views.manage', async ({ actor, params, body }) => ({ view: await updateView(actor, params.id, body) }), {
  ...oneView,
  summary: "Rename, re-filter, share or unshare one's own view (audited view.update)",
  description: "A teammate's shared view: 403 (only its owner changes it).",
  responses: { 200: { description: 'The view now', view: OneSavedView } },
  errors: [409],
  body: updateViewInput,
  maxBytes: 16 * 1024,
});

export const DELETE = noContentRoute('views.manage', ({ actor, params }) => deleteView(actor, params.id), {
  ...oneView,
  summary: "Delete one's own view (audited view.delete)",
  responses: { 204: { description: 'Deleted' } },
});
