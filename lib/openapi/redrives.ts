// OpenAPI: redrive tasks (session cookie or personal API token). Team-scoped: another team's task is 404.
// Response bodies are the views of lib/redrive (docs/style.md "Views").
import { REDRIVE_TASK_STATUSES } from '@/lib/enums';
import {
  RedrivePreview,
  RedriveSeriesView,
  RedriveTaskDetail,
  RedriveTaskPageView,
  RedriveTaskWithHistoryView,
  redriveCommandInput,
  startRedriveInput,
} from '@/lib/redrive';
import { TransformPreview, TransformStartedView, transformInput, transformPreviewInput } from '@/lib/redrive/edit';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];

const id = idParam('id', 'Redrive task id');
const q = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'query', schema, description });

const command = (verb: string, who: string, what: string, statuses: number[]) => ({
  post: {
    tags: ['redrives'],
    summary: `${verb} (${who})`,
    description: `${what} Audited as redrive.${verb.toLowerCase()}.`,
    security,
    parameters: [id],
    requestBody: { required: false, content: jsonContent(schemaOf(redriveCommandInput)) },
    responses: { '200': { description: 'The task', content: jsonContent(ref('RedriveTask')) }, ...errors(...statuses) },
  },
});

export const redrivesArea: OpenApiArea = {
  tag: { name: 'redrives', description: 'Send dead letters back to their own source after the fix: rate-limited, resumable, guarded by a loop limit, a circuit breaker, a canary and approval.' },
  schemas: {
    RedriveTask: viewOf(RedriveTaskDetail),
    RedriveTaskPage: viewOf(RedriveTaskPageView),
    RedriveTaskWithHistory: viewOf(RedriveTaskWithHistoryView),
    RedrivePreview: viewOf(RedrivePreview),
    StartRedrive: schemaOf(startRedriveInput),
  },
  paths: {
    '/api/v1/redrives': {
      get: {
        tags: ['redrives'],
        summary: 'List redrive tasks, newest first',
        security,
        parameters: [
          q('status', 'A status, or active', { type: 'string', enum: ['active', ...REDRIVE_TASK_STATUSES] }),
          q('source', 'Source name'),
          q('after', 'Keyset cursor: `next` of the previous page'),
          q('limit', 'Page size', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
        ],
        responses: {
          '200': { description: 'A page', content: jsonContent(ref('RedriveTaskPage')) },
          ...errors(401, 403, 422),
        },
      },
      post: {
        tags: ['redrives'],
        summary: 'Start a redrive task (support, lead, admin)',
        description:
          'The selection resolves to one source and is frozen into the task. Over the source approvalThreshold a support engineer’s task waits in pending_approval. One active task per source: a second answers 409 with details.activeTaskId. Every sent item ends within outcomeWindowSeconds (default 600; the canary: canaryWindowSeconds, default 60): acknowledged, dead again, or else no death seen; the task completes when every item is final. A selection, of any kind, holding dead letters of a cluster that is an outage whose errors still arrive, or of a source whose alarms say outage (the preview\'s outage), answers 422 with details.field "outageConfirmed" until a lead confirms the downstream is healthy (outageConfirmed: true) with a reason (422 naming reason without one; 403 for support); the redrive.start audit event keeps the confirmation.',
        security,
        requestBody: { required: true, content: jsonContent(ref('StartRedrive')) },
        responses: { '201': { description: 'The task', content: jsonContent(ref('RedriveTask')) }, ...errors(400, 401, 403, 404, 409, 415, 422) },
      },
    },
    '/api/v1/redrives/preview': {
      get: {
        tags: ['redrives'],
        summary: 'What a redrive would cover, before it starts',
        security,
        parameters: [
          q('selection', 'The selection as JSON: {"ids":[…]} | {"cluster":"…","source"?:"…"} | {"filter":{…}} | {"source":"…"}'),
          q('ids', 'Short form: dead-letter ids, comma-separated'),
          q('cluster', 'Short form: a cluster id', { type: 'string', format: 'uuid' }),
          q('source', 'Short form: a source name (with cluster: that source of the cluster)'),
        ],
        responses: { '200': { description: 'The preview', content: jsonContent(ref('RedrivePreview')) }, ...errors(400, 401, 403, 404, 422) },
      },
    },
    '/api/v1/redrives/transform/preview': {
      post: {
        tags: ['redrives'],
        summary: 'What a bulk transform would do: samples before and after, the count, those it cannot apply to (support, lead, admin)',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(transformPreviewInput)) },
        responses: { '200': { description: 'The preview', content: jsonContent(viewOf(TransformPreview)) }, ...errors(400, 401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/redrives/transform': {
      post: {
        tags: ['redrives'],
        summary: 'Start a redrive task of transformed copies (support, lead, admin)',
        description:
          'Steps: set, rename or remove a JSON path; replace a header. Each copy is stored as a version of its dead letter with its own SHA-256; those the transform cannot apply to (not JSON, path missing) stay open, are listed on the task and are not sent. A transform of the source editApprovalThreshold dead letters or more (default 1) waits in pending_approval for another lead of the team or an admin. Audited as redrive.transform.',
        security,
        requestBody: { required: true, content: jsonContent(schemaOf(transformInput)) },
        responses: {
          '201': {
            description: 'The task',
            content: jsonContent(viewOf(TransformStartedView)),
          },
          ...errors(400, 401, 403, 404, 409, 415, 422),
        },
      },
    },
    '/api/v1/redrives/{id}': {
      get: {
        tags: ['redrives'],
        summary: 'A redrive task: status, counts, drift, verdict and its audit history',
        security,
        parameters: [id],
        responses: { '200': { description: 'The task and its audit history', content: jsonContent(ref('RedriveTaskWithHistory')) }, ...errors(401, 403, 404) },
      },
    },
    '/api/v1/redrives/{id}/series': {
      get: {
        tags: ['redrives'],
        summary: 'Sends and outcomes per second (the rate chart)',
        security,
        parameters: [id],
        responses: {
          '200': { description: 'Points, oldest first', content: jsonContent(viewOf(RedriveSeriesView)) },
          ...errors(401, 403, 404),
        },
      },
    },
    '/api/v1/redrives/{id}/pause': command('Pause', 'support, lead, admin', 'Stops sending within the status poll (well under 2 s).', [401, 403, 404, 409]),
    '/api/v1/redrives/{id}/resume': command('Resume', 'support, lead, admin', 'Continues at the task rate; a canary task sends a canary first again.', [401, 403, 404, 409]),
    '/api/v1/redrives/{id}/cancel': command('Cancel', 'support, lead, admin', 'What was sent stays sent; the rest is open again.', [401, 403, 404, 409]),
    '/api/v1/redrives/{id}/approve': command('Approve', 'lead, admin', 'Four eyes: never by the person who started it (403).', [401, 403, 404, 409]),
  },
};
