// GET /api/v1/dead-letters — a keyset page of dead letters the caller may read, filtered; `count=true` adds a capped count
import { jsonRoute } from '@/lib/auth/guard';
import { deadLetterListQuery, deadLetterListRoute, deadLetterPage } from '@/lib/deadletters/route-shapes';

export const GET = jsonRoute('deadletters.read', ({ actor, query }) => deadLetterPage(actor, query), {
  summary: 'List dead letters (keyset pages)',
  ...deadLetterListRoute,
  query: deadLetterListQuery,
});
