// POST /api/v1/redrives/{id}/pause — pause a running redrive task; body { reason? }
import { api, pathParams } from '@/lib/auth/guard';
import { pauseRedrive, getRedriveTask, redriveCommandInput } from '@/lib/redrive';
import { COMMAND_MAX_BYTES } from '@/lib/redrive/http';

export const POST = api('deadletters.redrive', { params: pathParams('id'), body: redriveCommandInput, optionalBody: true, maxBytes: COMMAND_MAX_BYTES }, async ({ actor, params, body }) => {
  await pauseRedrive(actor, params.id, body);
  return Response.json(await getRedriveTask(actor, params.id));
});
