// POST /api/v1/sources/{source}/dead-letters/raw — ingest one dead letter: the body is the payload, Triage-* headers describe it
import { api, pathParams } from '@/lib/auth/guard';
import { ingestRaw, IngestRawAnswer, RAW_HEADER_PREFIX } from '@/lib/ingest/ingest-dead-letters';
import { INGEST_RAW_HEADERS, INGEST_RAW_REQUEST } from '@/lib/openapi/media';

// The payload is streamed under the source's own limit, which only the ingest token's lookup knows.
export const POST = api(
  'ingest-token',
  {
    summary: 'Ingest one dead letter: the body is the payload',
    description: `The body is stored byte for byte with its Content-Type. \`${RAW_HEADER_PREFIX}<name>\` headers carry the message's own headers.`,
    tags: ['ingest'],
    responses: { 200: { description: 'Already stored (idempotent retry)', view: IngestRawAnswer }, 201: { description: 'Created', view: IngestRawAnswer } },
    errors: [400, 413, 503],
    openapi: { parameters: INGEST_RAW_HEADERS, requestBody: INGEST_RAW_REQUEST },
    params: pathParams('source'),
    body: 'raw',
  },
  async ({ req, params }) => {
    const recorded = await ingestRaw(req, params.source);
    return Response.json({ ...recorded, items: [recorded] }, { status: recorded.created ? 201 : 200 });
  },
);
