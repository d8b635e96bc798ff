// GET /api/v1/views — the caller's saved views and those shared with their team (?page= to narrow)
// POST /api/v1/views — save a view ({ page, name, filters, shared }); filters checked by the page's own schema
import { z } from 'zod';
import { api } from '@/lib/auth/guard';
import { createView, createViewInput, listViews } from '@/lib/views';

// The page is checked by listViews against the pages it knows.
const listQuery = z.object({ page: z.string().optional() });

export const GET = api('views.manage', { query: listQuery }, async ({ actor, query }) => Response.json({ views: await listViews(actor, query) }));

export const POST = api('views.manage', { body: createViewInput, maxBytes: 16 * 1024 }, async ({ actor, body }) =>
  Response.json({ view: await createView(actor, body) }, { status: 201 }),
);
