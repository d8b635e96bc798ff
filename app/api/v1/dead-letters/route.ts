// GET /api/v1/dead-letters — a keyset page of dead letters the caller may read, filtered; `count=true` adds a capped count
import { api } from '@/lib/auth/guard';
import { deadLetterListQuery } from '@/lib/deadletters/http';
import { countDeadLetters, listDeadLetters, DeadLetterPageWithCount } from '@/lib/deadletters/list-dead-letters';

export const GET = api(
  'deadletters.read',
  {
    summary: 'List dead letters (keyset pages)',
    tags: ['dead letters'],
    responses: { 200: { description: 'A page', view: DeadLetterPageWithCount } },
    errors: [400],
    query: deadLetterListQuery,
  },
  async ({ actor, query: { cursor, limit, count: withCount, reveal, ...filters } }) => {
    const [page, count] = await Promise.all([
      listDeadLetters(actor, filters, cursor ?? null, { limit, reveal }),
      withCount ? countDeadLetters(actor, filters, { reveal }) : undefined,
    ]);
    return Response.json(count ? { ...page, count } : page);
  },
);
