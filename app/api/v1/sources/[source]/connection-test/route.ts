// POST /api/v1/sources/:source/connection-test — probe a connector source's broker: queue exists, depth, consumers…
import { api } from '@/lib/auth/guard';
import { testConnection } from '@/lib/connectors/test-connection';

export const POST = api<{ source: string }>('sources.import', async (_req, { actor, params }) => Response.json(await testConnection(actor, params.source)));
