// GET /api/v1/sources — sources the caller may read
// POST /api/v1/sources — create a source (admin)
import { api } from '@/lib/auth/guard';
import { createSource, sourceInput } from '@/lib/sources/create-source';
import { listSourceViews } from '@/lib/sources/list-sources';

export const GET = api('deadletters.read', {}, async ({ actor }) => {
  return Response.json(await listSourceViews(actor));
});

export const POST = api('admin.manage', { body: sourceInput }, async ({ actor, body }) => {
  const s = await createSource(actor, body);
  return Response.json({ id: s.id, name: s.name, kind: s.kind }, { status: 201 });
});
