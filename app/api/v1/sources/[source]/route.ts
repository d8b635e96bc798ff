// GET /api/v1/sources/:source — one source: settings (never a secret), a connector's health
// PATCH /api/v1/sources/:source — change a connector source's connection or replace its credentials (admin); audited
import { api, pathParams } from '@/lib/auth/guard';
import { getSource } from '@/lib/sources/get-source';
import { connectionPatch, updateSourceConnection } from '@/lib/sources/update-connection';

const params = pathParams('source');

export const GET = api('deadletters.read', { params }, async ({ actor, params }) => Response.json({ source: await getSource(actor, params.source) }));

export const PATCH = api('admin.manage', { params, body: connectionPatch, maxBytes: 64 * 1024 }, async ({ actor, params, body }) => {
  const { source, changed } = await updateSourceConnection(actor, params.source, body);
  return Response.json({ source: await getSource(actor, source.id), changed });
});
