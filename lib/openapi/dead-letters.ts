// OpenAPI: reading, deciding on and exporting dead letters (session cookie or personal API token).
// Response bodies are the views of lib/deadletters and lib/redrive/edit (docs/style.md "Views").
import { DEAD_LETTER_REASONS, DEAD_LETTER_STATUSES } from '@/lib/enums';
import { BulkDecisionResult, DecisionPreview, DecisionResult, bulkDecisionInput, decisionInput, MAX_BULK, selectionSchema } from '@/lib/deadletters/decide';
import { DeadLetterDetail } from '@/lib/deadletters/get-dead-letter';
import { DeadLetterGoneView, DeadLetterTombstoneView } from '@/lib/deadletters/get-tombstone';
import { DeadLetterPageWithCount, DeadLetterSummary, MAX_PAGE_SIZE } from '@/lib/deadletters/list-dead-letters';
import { RevealView } from '@/lib/deadletters/reveal-payload';
import { exportRevealBody } from '@/lib/deadletters/export-dead-letters';
import { DeadLetterVersionsView, EditedView, editInput } from '@/lib/redrive/edit';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];

const q = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'query', schema, description });
const list = (values: readonly string[]) => ({ type: 'string', description: `Comma-separated: ${values.join(', ')}` });
const filterParams = [
  q('source', 'Source names, comma-separated'),
  q('status', 'Statuses', list(DEAD_LETTER_STATUSES)),
  q('reason', 'Reasons', list(DEAD_LETTER_REASONS)),
  q('errorType', 'Exact error type'),
  q('clusterId', 'Members of one cluster', { type: 'string', format: 'uuid' }),
  q('messageId', 'Exact message id'),
  q('from', 'Dead at or after', { type: 'string', format: 'date-time' }),
  q('to', 'Dead before', { type: 'string', format: 'date-time' }),
  q('q', 'Substring (at least 3 characters) of the error message or the payload text (the first 4,096 characters of a UTF-8 payload)'),
  q('sort', 'By dead-letter time', { type: 'string', enum: ['newest', 'oldest'], default: 'newest' }),
];

const exportParams = [
  q('format', 'Output format', { type: 'string', enum: ['csv', 'ndjson'], default: 'ndjson' }),
  q('payload', 'Include payloads (base64)', { type: 'boolean', default: false }),
  ...filterParams,
];
const exported = {
  description: 'The rows; X-Total-Count is the count audited at the start',
  content: { 'text/csv': { schema: { type: 'string' } }, 'application/x-ndjson': { schema: { type: 'string' } } },
};

const pageParams = [
  ...filterParams,
  q('cursor', 'nextCursor of the previous page'),
  q('limit', 'Page size', { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 50 }),
  q('count', 'Add a capped count of all matches', { type: 'boolean' }),
  q('reveal', 'The id of your search reveal (POST /api/v1/dead-letters/search-reveal): `q` then matches inside masked values too; 422 when it is not yours or is older than 15 minutes'),
];
const id = idParam('id', 'Dead-letter id');
/** A dead letter whose month retention dropped: 410 with its tombstone, where a 404 would say it never was. */
const dropped = {
  description: 'Dropped by retention (its month was decided and past retention): error.details.tombstone is what is kept of it',
  content: jsonContent(ref('DeadLetterGone')),
};

const decide = (verb: 'archive' | 'discard', who: string, what: string) => ({
  post: {
    tags: ['dead letters'],
    summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} one dead letter (${who})`,
    description: `${what} Audited in the same transaction.`,
    security,
    parameters: [id],
    requestBody: { required: true, content: jsonContent(schemaOf(decisionInput)) },
    responses: { '200': { description: 'Decided', content: jsonContent(viewOf(DecisionResult)) }, ...errors(401, 403, 404, 409, 422) },
  },
});

const bulk = (verb: 'archive' | 'discard', who: string) => ({
  post: {
    tags: ['dead letters'],
    summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a selection (${who})`,
    description: `Every dead letter of the selection whose status allows it, at most ${MAX_BULK}; one transaction and one audit event naming the selection and count.`,
    security,
    requestBody: { required: true, content: jsonContent(schemaOf(bulkDecisionInput)) },
    responses: { '200': { description: 'Decided', content: jsonContent(viewOf(BulkDecisionResult)) }, ...errors(401, 403, 422) },
  },
});

export const deadLettersArea: OpenApiArea = {
  tag: { name: 'dead letters', description: 'Read, decide on and export dead letters. Team-scoped roles see their team only: another team\'s id answers 404.' },
  schemas: {
    DeadLetterSummary: viewOf(DeadLetterSummary),
    DeadLetterPage: viewOf(DeadLetterPageWithCount),
    DeadLetter: viewOf(DeadLetterDetail),
    DeadLetterTombstone: viewOf(DeadLetterTombstoneView),
    DeadLetterGone: viewOf(DeadLetterGoneView),
    Selection: schemaOf(selectionSchema),
  },
  paths: {
    '/api/v1/dead-letters': {
      get: {
        tags: ['dead letters'],
        summary: 'List dead letters (keyset pages)',
        security,
        parameters: pageParams,
        responses: { '200': { description: 'A page', content: jsonContent(ref('DeadLetterPage')) }, ...errors(400, 401, 403, 422) },
      },
    },
    '/api/v1/sources/{source}/dead-letters': {
      get: {
        tags: ['dead letters'],
        summary: 'List dead letters of one source',
        security,
        parameters: [idParam('source', 'Source name'), ...pageParams.filter((p) => p.name !== 'source')],
        responses: { '200': { description: 'A page', content: jsonContent(ref('DeadLetterPage')) }, ...errors(400, 401, 403, 422) },
      },
    },
    '/api/v1/dead-letters/{id}': {
      get: {
        tags: ['dead letters'],
        summary: 'One dead letter: all metadata, sha256, payloadSize, status, failure history, decision',
        security,
        parameters: [id, q('reveal', 'A recent reveal id of yours for this dead letter, from POST …/reveal: its headers and error text clear')],
        description:
          "Headers, error text and decision reasons are masked (e-mails, IBANs, card numbers) for every role, as on the page, unless `reveal` names a recent reveal of yours (422 when it does not). A dead letter whose month retention dropped answers 410 with its tombstone (status, source, when it died, when it was dropped); another team's id answers 404 either way.",
        responses: { '200': { description: 'The dead letter', content: jsonContent(ref('DeadLetter')) }, ...errors(401, 403, 404), '410': dropped },
      },
    },
    '/api/v1/dead-letters/{id}/payload': {
      get: {
        tags: ['dead letters'],
        summary: 'The exact payload bytes',
        description:
          'Served as an attachment with the original Content-Type, exact Content-Length, X-Payload-Sha256, nosniff and a sandboxing CSP. A masked (sensitive) payload needs payload.reveal and `reveal`: the id of a reveal POSTed to …/reveal with a reason (a payload.reveal audit event). A GET never reveals.',
        security,
        parameters: [id, q('reveal', 'A recent reveal id of yours for this dead letter, from POST …/reveal')],
        responses: { '200': { description: 'The bytes', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }, ...errors(401, 403, 404, 410, 422) },
      },
    },
    '/api/v1/dead-letters/{id}/reveal': {
      post: {
        tags: ['dead letters'],
        summary: 'Reveal a masked payload (payload.reveal; audited)',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(decisionInput)) },
        responses: {
          '201': { description: 'Revealed for 15 minutes', content: jsonContent(viewOf(RevealView)) },
          ...errors(401, 403, 404, 422),
        },
      },
    },
    '/api/v1/dead-letters/search-reveal': {
      post: {
        tags: ['dead letters'],
        summary: 'Search inside masked values for 15 minutes (payload.reveal; audited)',
        description:
          'Without it, `q` matches no masked value for any role (a match would tell whether a dead letter holds a value). The event records who, the reason and the team, never what is searched for. Matches are still shown masked.',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(decisionInput)) },
        responses: {
          '201': { description: 'Granted for 15 minutes', content: jsonContent(viewOf(RevealView)) },
          ...errors(401, 403, 422),
        },
      },
    },
    '/api/v1/dead-letters/{id}/edit': {
      post: {
        tags: ['dead letters'],
        summary: 'Edit and redrive: redrive an edited copy of the payload and headers (support, lead, admin)',
        description:
          'The copy is stored as a version of the dead letter (its own SHA-256); the original bytes stay as they are and downloadable. The redrive task of one item waits in pending_approval for another lead of the team or an admin when the source editApprovalThreshold is 1 (the default). A masked payload needs a revealId (POST …/reveal) first (403 without). Audited as deadletter.edit with both hashes and the diff.',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(editInput)) },
        responses: {
          '201': { description: 'The version and its task', content: jsonContent(viewOf(EditedView)) },
          ...errors(400, 401, 403, 404, 409, 413, 415, 422),
        },
      },
    },
    '/api/v1/dead-letters/{id}/versions/{version}/payload': {
      get: {
        tags: ['dead letters'],
        summary: "An edited version's exact bytes",
        description:
          'Served like the original payload (attachment, X-Payload-Sha256 the version\'s own SHA-256, nosniff, sandboxing CSP). The same reveal rules: a version whose bytes hold sensitive values, or of a masked original, needs payload.reveal and `reveal`, the id of a reveal of this dead letter POSTed to …/reveal.',
        security,
        parameters: [id, idParam('version', 'The version number (1, 2, …)'), q('reveal', 'A recent reveal id of yours for this dead letter, from POST …/reveal')],
        responses: { '200': { description: 'The bytes', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }, ...errors(401, 403, 404, 422), '410': dropped },
      },
    },
    '/api/v1/dead-letters/{id}/versions': {
      get: {
        tags: ['dead letters'],
        summary: 'The edited copies of a dead letter, newest first',
        security,
        parameters: [id],
        responses: {
          '200': { description: 'Versions', content: jsonContent(viewOf(DeadLetterVersionsView)) },
          ...errors(401, 403, 404),
        },
      },
    },
    '/api/v1/dead-letters/{id}/archive': decide('archive', 'support, lead, admin', 'Resolved on purpose; the dead letter and its payload are kept. Only open dead letters.'),
    '/api/v1/dead-letters/{id}/discard': decide('discard', 'lead, admin', 'The payload is deleted; the row stays as a tombstone with its size and SHA-256.'),
    '/api/v1/dead-letters/bulk/preview': {
      post: {
        tags: ['dead letters'],
        summary: 'How many dead letters a bulk decision would touch now',
        security,
        requestBody: {
          required: true,
          content: jsonContent({ type: 'object', required: ['decision', 'selection'], properties: { decision: { enum: ['archive', 'discard'] }, selection: ref('Selection') } }),
        },
        responses: { '200': { description: 'The count', content: jsonContent(viewOf(DecisionPreview)) }, ...errors(401, 403, 422) },
      },
    },
    '/api/v1/dead-letters/bulk/archive': bulk('archive', 'support, lead, admin'),
    '/api/v1/dead-letters/bulk/discard': bulk('discard', 'lead, admin'),
    '/api/v1/dead-letters/export': {
      get: {
        tags: ['dead letters'],
        summary: 'Export a filtered selection, streamed (audited)',
        description:
          'CSV cells that a spreadsheet would evaluate are prefixed with an apostrophe. Masked values (headers, error text, payloads) stay masked for every role: an export that reveals them is the POST. A GET with revealReason answers 422.',
        security,
        parameters: exportParams,
        responses: { '200': exported, ...errors(401, 403, 422) },
      },
      post: {
        tags: ['dead letters'],
        summary: 'Export a filtered selection with its masked values revealed (payload.reveal; audited)',
        description:
          'The same query as the GET; the body gives the reason, recorded with the selection and how many masked records the export revealed (a payload.reveal event) before the deadletter.export event.',
        security,
        parameters: exportParams,
        requestBody: { required: true, content: jsonContent(schemaOf(exportRevealBody)) },
        responses: { '200': exported, ...errors(401, 403, 415, 422) },
      },
    },
  },
};
