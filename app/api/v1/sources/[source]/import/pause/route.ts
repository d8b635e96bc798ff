// POST /api/v1/sources/:source/import/pause — pause a connector source's import (lead of its team, admin); body { reason? }; audited
import { api } from '@/lib/auth/guard';
import { importSwitchBody, setImportPaused } from '@/lib/connectors/pause-import';
import { commandBody } from '@/lib/redrive/http';

export const POST = api<{ source: string }>('sources.import', async (req, { actor, params }) => {
  const { reason } = importSwitchBody.parse(await commandBody(req));
  return Response.json(await setImportPaused(actor, params.source, true, reason));
});
