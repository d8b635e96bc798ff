// POST /api/v1/sources/:source/import/resume — resume a connector source's import (lead of its team, admin); body { reason? }; audited
import { api } from '@/lib/auth/guard';
import { importSwitchRoute, setImportPaused } from '@/lib/connectors/pause-import';

export const POST = api(
  'sources.import',
  {
    summary: "Resume a connector source's import (lead of the team, admin)",
    description: 'Body { reason? } (optional). Audited as source.import.resume.',
    ...importSwitchRoute,
  },
  async ({ actor, params, body }) => {
    return Response.json(await setImportPaused(actor, params.source, false, body.reason));
  },
);
