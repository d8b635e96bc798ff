// POST /api/v1/sources/:source/import/pause — pause a connector source's import (lead of its team, admin); body { reason? }; audited
import { api } from '@/lib/auth/guard';
import { importSwitchRoute, setImportPaused } from '@/lib/connectors/pause-import';

export const POST = api(
  'sources.import',
  {
    summary: "Pause a connector source's import (lead of the team, admin); messages wait on the broker",
    description: 'Body { reason? } (optional). The connectors worker stops after the batch in flight. Audited as source.import.pause.',
    ...importSwitchRoute,
  },
  async ({ actor, params, body }) => {
    return Response.json(await setImportPaused(actor, params.source, true, body.reason));
  },
);
