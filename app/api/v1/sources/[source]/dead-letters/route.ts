// POST /api/v1/sources/{source}/dead-letters — ingest a batch (application/json { deadLetters } or application/x-ndjson), ingest token
// GET /api/v1/sources/{source}/dead-letters — dead letters of one source, as GET /api/v1/dead-letters?source={source}
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { deadLetterListQuery, deadLetterListRoute, deadLetterPage } from '@/lib/deadletters/route-shapes';
import { ingestBatch, IngestBatchAnswer, INGEST_MAX_BATCH, INGEST_MAX_BODY_BYTES } from '@/lib/ingest/ingest-dead-letters';
import { INGEST_BATCH_REQUEST } from '@/lib/openapi/media';

const params = pathParams('source');

// NDJSON is read line by line as it arrives, so the body stays raw here; lib/ingest caps and parses it.
export const POST = jsonRoute('ingest-token', async ({ req, params }) => ({ items: await ingestBatch(req, params.source) }), {
  summary: 'Ingest a batch of dead letters',
  description: `JSON \`{ "deadLetters": [...] }\` or NDJSON (one dead letter a line). At most ${INGEST_MAX_BATCH} dead letters and ${INGEST_MAX_BODY_BYTES} bytes of body per request; each payload at most the source's payload limit (default 10 MiB). The answer lists every input in order.`,
  tags: ['ingest'],
  responses: { 200: { description: 'Stored (or already there)', view: IngestBatchAnswer } },
  errors: [400, 413, 415, 503],
  openapi: { requestBody: INGEST_BATCH_REQUEST },
  params,
  body: 'raw',
});

export const GET = jsonRoute('deadletters.read', ({ actor, params, query }) => deadLetterPage(actor, query, { source: [params.source] }), {
  summary: 'List dead letters of one source',
  ...deadLetterListRoute,
  // The path names the source: ?source= is not a parameter here.
  params,
  query: deadLetterListQuery.omit({ source: true }),
});
