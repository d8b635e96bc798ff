// POST /api/v1/redrives/{id}/approve — approve a redrive waiting for a lead (four eyes: not its starter); body { reason? }
import { api, pathParams } from '@/lib/auth/guard';
import { approveRedrive, getRedriveTask, redriveCommandInput } from '@/lib/redrive';
import { COMMAND_MAX_BYTES } from '@/lib/redrive/http';

export const POST = api('redrive.approve', { params: pathParams('id'), body: redriveCommandInput, optionalBody: true, maxBytes: COMMAND_MAX_BYTES }, async ({ actor, params, body }) => {
  await approveRedrive(actor, params.id, body);
  return Response.json(await getRedriveTask(actor, params.id));
});
