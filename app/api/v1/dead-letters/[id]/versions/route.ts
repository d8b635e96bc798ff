// GET /api/v1/dead-letters/{id}/versions — the dead letter's edited copies: version, SHA-256, size, diff, tasks
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { listDeadLetterVersions, DeadLetterVersionsView } from '@/lib/redrive/edit';

export const GET = jsonRoute('deadletters.read', async ({ actor, params }) => ({ versions: await listDeadLetterVersions(actor, params.id) }), {
  summary: 'The edited copies of a dead letter, newest first',
  tags: ['dead letters'],
  responses: { 200: { description: 'Versions', view: DeadLetterVersionsView } },
  params: pathParams('id'),
});
