// GET /api/v1/sources/:source — one source: settings (never a secret), a connector's health
// PATCH /api/v1/sources/:source — change a connector source's connection or replace its credentials (admin); audited
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { getSource, SourceAnswer, ConnectionChangedView } from '@/lib/sources/get-source';
import { connectionPatch, updateSourceConnection } from '@/lib/sources/update-connection';

const params = pathParams('source');

export const GET = jsonRoute('deadletters.read', async ({ actor, params }) => ({ source: await getSource(actor, params.source) }), {
  summary: "One source: its settings (never a secret) and, for a connector source, its import's health",
  tags: ['connectors'],
  responses: { 200: { description: 'The source', view: SourceAnswer } },
  params,
});

export const PATCH = jsonRoute(
  'admin.manage',
  async ({ actor, params, body }) => {
    const { source, changed } = await updateSourceConnection(actor, params.source, body);
    return { source: await getSource(actor, source.id), changed };
  },
  {
    summary: "Change a connector source's connection or replace its credentials (admin)",
    description:
      'Settings sent are merged into the stored ones (null removes one) and checked whole by the connector; secret fields sent replace the stored ones, those left out are kept. The import restarts with them within CONNECTOR_DISCOVERY_MS. Audited as source.connection.update, credentials redacted.',
    tags: ['connectors'],
    responses: { 200: { description: 'Saved (changed: false when nothing differed)', view: ConnectionChangedView } },
    errors: [400],
    params,
    body: connectionPatch,
    maxBytes: 64 * 1024,
  },
);
