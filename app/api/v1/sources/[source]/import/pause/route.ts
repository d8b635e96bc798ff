// POST /api/v1/sources/:source/import/pause — pause a connector source's import (lead of its team, admin); body { reason? }; audited
import { api, pathParams } from '@/lib/auth/guard';
import { importSwitchBody, setImportPaused } from '@/lib/connectors/pause-import';
import { COMMAND_MAX_BYTES } from '@/lib/redrive/http';

export const POST = api('sources.import', { params: pathParams('source'), body: importSwitchBody, optionalBody: true, maxBytes: COMMAND_MAX_BYTES }, async ({ actor, params, body }) => {
  return Response.json(await setImportPaused(actor, params.source, true, body.reason));
});
