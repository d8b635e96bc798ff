// GET /api/v1/redrives/{id} — a redrive task: status, counts (sent / acknowledged / dead again / skipped / failed / total), drift, verdict, history
import { api, pathParams } from '@/lib/auth/guard';
import { getRedriveTask, redriveHistory } from '@/lib/redrive';

export const GET = api('deadletters.read', { params: pathParams('id') }, async ({ actor, params }) => {
  const [task, history] = await Promise.all([getRedriveTask(actor, params.id), redriveHistory(actor, params.id)]);
  return Response.json({ ...task, history });
});
