// POST /api/v1/sources/:source/connection-test — probe a connector source's broker: queue exists, depth, consumers…
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { testConnection, ConnectionTestView } from '@/lib/connectors/test-connection';

export const POST = jsonRoute('sources.import', ({ actor, params }) => testConnection(actor, params.source), {
  summary: "Test a connector source's connection: the queue exists, its depth and consumers (lead of the team, admin)",
  description:
    'A failed probe (broker down, wrong credentials, no such queue) is still a 200 with ok: false and the error in words. Bounded to 10 s. Not audited: nothing changes.',
  tags: ['connectors'],
  responses: { 200: { description: 'What the probe learnt', view: ConnectionTestView } },
  params: pathParams('source'),
});
