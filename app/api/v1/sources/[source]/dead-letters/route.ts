// POST /api/v1/sources/{source}/dead-letters — ingest a batch (application/json { deadLetters } or application/x-ndjson), ingest token
// GET /api/v1/sources/{source}/dead-letters — dead letters of one source, as GET /api/v1/dead-letters?source={source}
import { api, errorResponse } from '@/lib/auth/guard';
import { listQuery } from '@/lib/deadletters/http';
import { countDeadLetters, listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { ingestBatch } from '@/lib/ingest/ingest-dead-letters';

type Params = { source: string };

export async function POST(req: Request, ctx: { params: Promise<Params> }): Promise<Response> {
  try {
    const items = await ingestBatch(req, (await ctx.params).source);
    return Response.json({ items });
  } catch (e) {
    return errorResponse(e);
  }
}

export const GET = api<Params>('deadletters.read', async (req, { actor, params }) => {
  const q = listQuery(new URL(req.url));
  const filters = { ...q.filters, source: [params.source] };
  const [page, count] = await Promise.all([
    listDeadLetters(actor, filters, q.cursor, { limit: q.limit }),
    q.withCount ? countDeadLetters(actor, filters) : undefined,
  ]);
  return Response.json(count ? { ...page, count } : page);
});
