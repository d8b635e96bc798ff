// POST /api/v1/sources/:source/connection-test — probe a connector source's broker: queue exists, depth, consumers…
import { api, pathParams } from '@/lib/auth/guard';
import { testConnection } from '@/lib/connectors/test-connection';

export const POST = api('sources.import', { params: pathParams('source') }, async ({ actor, params }) => Response.json(await testConnection(actor, params.source)));
