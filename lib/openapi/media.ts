// What route specs cannot derive from their schemas (lib/auth/guard.ts RouteSpec): answers that are
// not JSON, and the ingest routes' raw bodies and headers. No route import here (document.ts imports routes).
import { ingestBatchSchema } from '@/lib/ingest/ingest-item';
import { NDJSON_TYPE, RAW_HEADERS } from '@/lib/ingest/ingest-dead-letters';
import { schemaOf } from './area';

/** The exact bytes of a payload, with their own Content-Type. */
export const BYTES = { '*/*': { type: 'string', format: 'binary' } };
/** A streamed export: CSV or NDJSON, as the format asks. */
export const EXPORT_ROWS = { 'text/csv': { type: 'string' }, 'application/x-ndjson': { type: 'string' } };
/** Prometheus text exposition format. */
export const PROMETHEUS_TEXT = { 'text/plain': { type: 'string' } };

/** The batch ingest body: JSON { deadLetters } or NDJSON, read as a stream by lib/ingest (so `body: 'raw'`). */
export const INGEST_BATCH_REQUEST = {
  required: true,
  content: {
    'application/json': { schema: schemaOf(ingestBatchSchema) },
    [NDJSON_TYPE]: { schema: { type: 'string', description: 'One IngestDeadLetter JSON object per line' } },
  },
};

/** The raw ingest body is the payload itself; its Triage-* headers say the rest. */
export const INGEST_RAW_REQUEST = { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } };

export const INGEST_RAW_HEADERS = Object.entries(RAW_HEADERS).map(([field, header]) => ({
  name: header,
  in: 'header',
  required: field === 'messageId',
  schema: { type: 'string' },
  description: `As the batch item's \`${field}\``,
}));
