// GET /api/v1/dead-letters — a keyset page of dead letters the caller may read, filtered; `count=true` adds a capped count
import { api } from '@/lib/auth/guard';
import { listQuery } from '@/lib/deadletters/http';
import { countDeadLetters, listDeadLetters } from '@/lib/deadletters/list-dead-letters';

export const GET = api('deadletters.read', async (req, { actor }) => {
  const q = listQuery(new URL(req.url));
  const [page, count] = await Promise.all([
    listDeadLetters(actor, q.filters, q.cursor, { limit: q.limit }),
    q.withCount ? countDeadLetters(actor, q.filters) : undefined,
  ]);
  return Response.json(count ? { ...page, count } : page);
});
