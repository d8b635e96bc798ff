// GET /api/v1/views — the caller's saved views and those shared with their team (?page= to narrow)
// POST /api/v1/views — save a view ({ page, name, filters, shared }); filters checked by the page's own schema
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { createView, listViews } from '@/lib/views';

export const GET = api('views.manage', async (req, { actor }) =>
  Response.json({ views: await listViews(actor, { page: new URL(req.url).searchParams.get('page') ?? undefined }) }),
);

export const POST = api('views.manage', async (req, { actor }) =>
  Response.json({ view: await createView(actor, (await readJsonBody(req, 16 * 1024)) as never) }, { status: 201 }),
);
