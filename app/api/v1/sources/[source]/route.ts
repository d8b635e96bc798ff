// GET /api/v1/sources/:source — one source: settings (never a secret), a connector's health
// PATCH /api/v1/sources/:source — change a connector source's connection or replace its credentials (admin); audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { getSource } from '@/lib/sources/get-source';
import { updateSourceConnection, type ConnectionPatch } from '@/lib/sources/update-connection';

type Params = { source: string };

export const GET = api<Params>('deadletters.read', async (_req, { actor, params }) => Response.json({ source: await getSource(actor, params.source) }));

export const PATCH = api<Params>('admin.manage', async (req, { actor, params }) => {
  const { source, changed } = await updateSourceConnection(actor, params.source, (await readJsonBody(req, 64 * 1024)) as ConnectionPatch);
  return Response.json({ source: await getSource(actor, source.id), changed });
});
