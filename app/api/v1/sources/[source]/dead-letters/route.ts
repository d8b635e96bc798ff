// POST /api/v1/sources/{source}/dead-letters — ingest a batch (application/json { deadLetters } or application/x-ndjson), ingest token
// GET /api/v1/sources/{source}/dead-letters — dead letters of one source, as GET /api/v1/dead-letters?source={source}
import { api, pathParams } from '@/lib/auth/guard';
import { deadLetterListQuery } from '@/lib/deadletters/http';
import { countDeadLetters, listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { ingestBatch } from '@/lib/ingest/ingest-dead-letters';

const params = pathParams('source');

// NDJSON is read line by line as it arrives, so the body stays raw here; lib/ingest caps and parses it.
export const POST = api('ingest-token', { params, body: 'raw' }, async ({ req, params }) => {
  return Response.json({ items: await ingestBatch(req, params.source) });
});

export const GET = api('deadletters.read', { params, query: deadLetterListQuery }, async ({ actor, params, query: { cursor, limit, count: withCount, reveal, ...q } }) => {
  const filters = { ...q, source: [params.source] };
  const [page, count] = await Promise.all([
    listDeadLetters(actor, filters, cursor ?? null, { limit, reveal }),
    withCount ? countDeadLetters(actor, filters, { reveal }) : undefined,
  ]);
  return Response.json(count ? { ...page, count } : page);
});
