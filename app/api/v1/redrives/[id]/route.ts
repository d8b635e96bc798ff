// GET /api/v1/redrives/{id} — a redrive task: status, counts (sent / acknowledged / dead again / skipped / failed / total), drift, verdict, history
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { getRedriveTask, redriveHistory, RedriveTaskWithHistoryView } from '@/lib/redrive';

export const GET = jsonRoute(
  'deadletters.read',
  async ({ actor, params }) => {
    const [task, history] = await Promise.all([getRedriveTask(actor, params.id), redriveHistory(actor, params.id)]);
    return { ...task, history };
  },
  {
    summary: 'A redrive task: status, counts, drift, verdict and its audit history',
    tags: ['redrives'],
    responses: { 200: { description: 'The task and its audit history', view: RedriveTaskWithHistoryView } },
    params: pathParams('id'),
  },
);
