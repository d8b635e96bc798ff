// GET /api/v1/views — the caller's saved views and those shared with their team (?page= to narrow)
// POST /api/v1/views — save a view ({ page, name, filters, shared }); filters checked by the page's own schema
import { z } from 'zod';
import { jsonRoute } from '@/lib/auth/guard';
import { createView, createViewInput, listViews } from '@/lib/saved-views';
import { VIEW_PAGES } from '@/lib/saved-views/pages';
import { SavedViewListView, OneSavedView } from '@/lib/saved-views/saved-views';

// The page is checked by listViews against the pages it knows.
const listQuery = z.object({
  page: z
    .string()
    .optional()
    .describe(`One page's views: ${VIEW_PAGES.join(', ')}`),
});

export const GET = jsonRoute('views.manage', async ({ actor, query }) => ({ views: await listViews(actor, query) }), {
  summary: "The caller's views, then those shared with their team",
  tags: ['views'],
  responses: { 200: { description: 'Views', view: SavedViewListView } },
  query: listQuery,
});

export const POST = jsonRoute('views.manage', async ({ actor, body }) => ({ view: await createView(actor, body) }), {
  summary: 'Save a view (views.manage; audited view.create)',
  description:
    "The filters are parsed by the page's own filter schema: an unknown filter or a bad value is a 422 naming it. A view of the audit trail needs audit.read. shared: true shares it with the caller's team (a caller without a team: 403). A name is unique per user and page (409).",
  tags: ['views'],
  responses: { 201: { description: 'The view', view: OneSavedView } },
  errors: [409],
  body: createViewInput,
  maxBytes: 16 * 1024,
});
