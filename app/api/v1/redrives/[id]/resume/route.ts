// POST /api/v1/redrives/{id}/resume — resume a paused redrive task (a canary task sends a canary first again); body { reason? }
import { api, pathParams } from '@/lib/auth/guard';
import { resumeRedrive, getRedriveTask, redriveCommandInput } from '@/lib/redrive';
import { COMMAND_MAX_BYTES } from '@/lib/redrive/http';

export const POST = api('deadletters.redrive', { params: pathParams('id'), body: redriveCommandInput, optionalBody: true, maxBytes: COMMAND_MAX_BYTES }, async ({ actor, params, body }) => {
  await resumeRedrive(actor, params.id, body);
  return Response.json(await getRedriveTask(actor, params.id));
});
