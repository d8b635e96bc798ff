// POST /api/v1/redrives/{id}/cancel — cancel a redrive task; what was sent stays sent, the rest is open again; body { reason? }
import { api, pathParams } from '@/lib/auth/guard';
import { cancelRedrive, getRedriveTask, redriveCommandInput } from '@/lib/redrive';
import { COMMAND_MAX_BYTES } from '@/lib/redrive/http';

export const POST = api('deadletters.redrive', { params: pathParams('id'), body: redriveCommandInput, optionalBody: true, maxBytes: COMMAND_MAX_BYTES }, async ({ actor, params, body }) => {
  await cancelRedrive(actor, params.id, body);
  return Response.json(await getRedriveTask(actor, params.id));
});
