// GET /api/v1/redrives — redrive tasks the caller may read, newest first (?status=…|active, ?source=, ?after=<id>, ?limit=)
// POST /api/v1/redrives — start a redrive task: { selection: { ids | cluster | filter | source }, ratePerSecond, canary?, ramp?, reason?,
//   outageConfirmed? (a lead, with a reason: dead letters of an outage whose errors still arrive) }
import { z } from 'zod';
import { api } from '@/lib/auth/guard';
import { REDRIVE_TASK_STATUSES } from '@/lib/enums';
import { getRedriveTask, listRedriveTasks, startRedrive, startRedriveInput } from '@/lib/redrive';

const listQuery = z.object({
  status: z.enum(['active', ...REDRIVE_TASK_STATUSES]).optional(),
  source: z.string().min(1).optional(),
  after: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const GET = api('deadletters.read', { query: listQuery }, async ({ actor, query }) => {
  return Response.json(await listRedriveTasks(actor, query));
});

export const POST = api('deadletters.redrive', { body: startRedriveInput, maxBytes: 1 << 20 }, async ({ actor, body }) => {
  const task = await startRedrive(actor, body);
  return Response.json(await getRedriveTask(actor, task.id), { status: 201, headers: { Location: `/api/v1/redrives/${task.id}` } });
});
