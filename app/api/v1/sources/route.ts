// GET /api/v1/sources — sources the caller may read
// POST /api/v1/sources — create a source (admin)
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { createSource } from '@/lib/sources/create-source';
import { listSourceViews } from '@/lib/sources/list-sources';

export const GET = api('deadletters.read', async (_req, { actor }) => {
  return Response.json(await listSourceViews(actor));
});

export const POST = api('admin.manage', async (req, { actor }) => {
  const s = await createSource(actor, (await readJsonBody(req)) as never);
  return Response.json({ id: s.id, name: s.name, kind: s.kind }, { status: 201 });
});
