// OpenAPI: the ingest API (per-source ingest token).
// Response bodies are the views of lib/ingest and lib/deadletters (docs/style.md "Views").
import { RecordedDeadLetter } from '@/lib/deadletters/record-dead-letters';
import { ingestBatchSchema, ingestDeadLetterSchema } from '@/lib/ingest/ingest-item';
import { IngestBatchAnswer, IngestRawAnswer, INGEST_MAX_BATCH, INGEST_MAX_BODY_BYTES, NDJSON_TYPE, RAW_HEADER_PREFIX, RAW_HEADERS } from '@/lib/ingest/ingest-dead-letters';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

// The forwarder's cue to hold the batch and send it again: nothing of it was written.
const busy = {
  '503': {
    description:
      'Nothing was written: Triage is over its write budget (details.reason "write_budget", a storm of writes) or its database is unavailable. Keep the batch (do not acknowledge it on your broker) and send it again after Retry-After seconds; the batch is idempotent.',
    headers: { 'Retry-After': { description: 'Seconds to wait before sending the batch again', schema: { type: 'integer', minimum: 1 } } },
    content: jsonContent(ref('Error')),
  },
};

const security = [{ ingestToken: [] }];
const rawAnswer = viewOf(IngestRawAnswer);
const source = idParam('source', 'Source name');

export const ingestArea: OpenApiArea = {
  tag: { name: 'ingest', description: 'How external systems forward their dead letters. Idempotent on (source, messageId); a batch is all-or-nothing.' },
  schemas: {
    IngestDeadLetter: schemaOf(ingestDeadLetterSchema),
    IngestBatch: schemaOf(ingestBatchSchema),
    RecordedDeadLetter: viewOf(RecordedDeadLetter),
  },
  paths: {
    '/api/v1/sources/{source}/dead-letters': {
      post: {
        tags: ['ingest'],
        summary: 'Ingest a batch of dead letters',
        description: `JSON \`{ "deadLetters": [...] }\` or NDJSON (one dead letter a line). At most ${INGEST_MAX_BATCH} dead letters and ${INGEST_MAX_BODY_BYTES} bytes of body per request; each payload at most the source's payload limit (default 10 MiB). The answer lists every input in order.`,
        security,
        parameters: [source],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('IngestBatch') },
            [NDJSON_TYPE]: { schema: { type: 'string', description: 'One IngestDeadLetter JSON object per line' } },
          },
        },
        responses: {
          '200': { description: 'Stored (or already there)', content: jsonContent(viewOf(IngestBatchAnswer)) },
          ...errors(400, 401, 404, 413, 415, 422),
          ...busy,
        },
      },
    },
    '/api/v1/sources/{source}/dead-letters/raw': {
      post: {
        tags: ['ingest'],
        summary: 'Ingest one dead letter: the body is the payload',
        description: `The body is stored byte for byte with its Content-Type. \`${RAW_HEADER_PREFIX}<name>\` headers carry the message's own headers.`,
        security,
        parameters: [
          source,
          ...Object.entries(RAW_HEADERS).map(([field, header]) => ({
            name: header,
            in: 'header',
            required: field === 'messageId',
            schema: { type: 'string' },
            description: `As the batch item's \`${field}\``,
          })),
        ],
        requestBody: { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
        responses: {
          '201': { description: 'Created', content: jsonContent(rawAnswer) },
          '200': { description: 'Already stored (idempotent retry)', content: jsonContent(rawAnswer) },
          ...errors(400, 401, 404, 413, 422),
          ...busy,
        },
      },
    },
  },
};
