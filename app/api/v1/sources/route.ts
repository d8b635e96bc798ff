// GET /api/v1/sources — sources the caller may read
// POST /api/v1/sources — create a source (admin)
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { createSource } from '@/lib/sources/create-source';
import { listSources } from '@/lib/sources/list-sources';
import { sourceView } from '@/lib/sources/source-view';

export const GET = api('deadletters.read', async (_req, { actor }) => {
  const sources = await listSources(actor);
  return Response.json({ sources: sources.map(sourceView) });
});

export const POST = api('admin.manage', async (req, { actor }) => {
  const s = await createSource(actor, (await readJsonBody(req)) as never);
  return Response.json({ id: s.id, name: s.name, kind: s.kind }, { status: 201 });
});
