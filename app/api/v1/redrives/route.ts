// GET /api/v1/redrives — redrive tasks the caller may read, newest first (?status=…|active, ?source=, ?after=<id>, ?limit=)
// POST /api/v1/redrives — start a redrive task: { selection: { ids | cluster | filter | source }, ratePerSecond, canary?, ramp?, reason? }
import { z } from 'zod';
import { api } from '@/lib/auth/guard';
import { REDRIVE_TASK_STATUSES } from '@/lib/enums';
import { readJsonBody } from '@/lib/http';
import { getRedriveTask, listRedriveTasks, startRedrive, type StartRedriveInput } from '@/lib/redrive';

const listQuery = z.object({
  status: z.enum(['active', ...REDRIVE_TASK_STATUSES]).optional(),
  source: z.string().min(1).optional(),
  after: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const GET = api('deadletters.read', async (req, { actor }) => {
  const q = listQuery.parse(Object.fromEntries(new URL(req.url).searchParams));
  return Response.json(await listRedriveTasks(actor, q));
});

export const POST = api('deadletters.redrive', async (req, { actor }) => {
  const task = await startRedrive(actor, (await readJsonBody(req, 1 << 20)) as StartRedriveInput);
  return Response.json(await getRedriveTask(actor, task.id), { status: 201, headers: { Location: `/api/v1/redrives/${task.id}` } });
});
