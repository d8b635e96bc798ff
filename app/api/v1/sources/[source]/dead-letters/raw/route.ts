// POST /api/v1/sources/{source}/dead-letters/raw — ingest one dead letter: the body is the payload, Triage-* headers describe it
import { api, pathParams } from '@/lib/auth/guard';
import { ingestRaw } from '@/lib/ingest/ingest-dead-letters';

// The payload is streamed under the source's own limit, which only the ingest token's lookup knows.
export const POST = api('ingest-token', { params: pathParams('source'), body: 'raw' }, async ({ req, params }) => {
  const recorded = await ingestRaw(req, params.source);
  return Response.json({ ...recorded, items: [recorded] }, { status: recorded.created ? 201 : 200 });
});
