// GET /api/v1/redrives — redrive tasks the caller may read, newest first (?status=…|active, ?source=, ?after=<id>, ?limit=)
// POST /api/v1/redrives — start a redrive task: { selection: { ids | cluster | filter | source }, ratePerSecond, canary?, ramp?, reason?,
//   outageConfirmed? (a lead, with a reason: dead letters of an outage whose errors still arrive) }
import { z } from 'zod';
import { familyRoute, jsonRoute } from '@/lib/auth/guard';
import { REDRIVE_TASK_STATUSES } from '@/lib/enums';
import { listRedriveTasks, startRedrive, startRedriveInput, RedriveTaskPageView, RedriveTaskDetail } from '@/lib/redrive';
import { startedTask, taskStartRoute } from '@/lib/redrive/route-shapes';

const listQuery = z.object({
  status: z
    .enum(['active', ...REDRIVE_TASK_STATUSES])
    .optional()
    .describe('A status, or active'),
  source: z.string().min(1).optional().describe('Source name'),
  after: z.string().optional().describe('Keyset cursor: `next` of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).optional().describe('Page size'),
});

export const GET = jsonRoute('deadletters.read', ({ actor, query }) => listRedriveTasks(actor, query), {
  summary: 'List redrive tasks, newest first',
  tags: ['redrives'],
  responses: { 200: { description: 'A page', view: RedriveTaskPageView } },
  query: listQuery,
});

export const POST = familyRoute(
  taskStartRoute(startRedriveInput, RedriveTaskDetail),
  'deadletters.redrive',
  async ({ actor, body }) => startedTask(actor, (await startRedrive(actor, body)).id),
  {
    summary: 'Start a redrive task (support, lead, admin)',
    description:
      'The selection resolves to one source and is frozen into the task. Over the source approvalThreshold a support engineer’s task waits in pending_approval. One active task per source: a second answers 409 with details.activeTaskId. Every sent item ends within outcomeWindowSeconds (default 600; the canary: canaryWindowSeconds, default 60): acknowledged, dead again, or else no death seen; the task completes when every item is final. A selection, of any kind, holding dead letters of a cluster that is an outage whose errors still arrive, or of a source whose alarms say outage (the preview\'s outage), answers 422 with details.field "outageConfirmed" until a lead confirms the downstream is healthy (outageConfirmed: true) with a reason (422 naming reason without one; 403 for support); the redrive.start audit event keeps the confirmation.',
  },
);
