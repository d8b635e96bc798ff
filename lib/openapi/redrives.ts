// OpenAPI: redrive tasks (session cookie or personal API token). Team-scoped: another team's task is 404.
import { z } from 'zod';
import { redriveCommandInput, startRedriveInput } from '@/lib/redrive';
import { transformInput, transformPreviewInput } from '@/lib/redrive/edit';
import { SOURCE_KINDS } from '@/lib/sources/source-kind';
import { errors, idParam, jsonContent, ref, schemaOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const ts = z.iso.datetime();
const status = z.enum(['pending_approval', 'queued', 'running', 'paused', 'completed', 'cancelled', 'failed']);

const counts = z.object({
  total: z.int(),
  sent: z.int(),
  acknowledged: z.int(),
  deadAgain: z.int().describe('Came back dead: reported by the consumer, or a newer generation of the same message recorded (a connector imports it so)'),
  noDeathSeen: z
    .int()
    .describe('Sent, neither acknowledged nor dead again by the end of the outcome window: final, a success for the canary and the breaker, never "acknowledged"'),
  skipped: z.int().describe('Past the source maxRedrives (a loop), or no longer open when the task started'),
  failed: z.int().describe('HTTP destinations: undelivered after every retry'),
  pending: z.int().describe('Not sent yet'),
  awaitingOutcome: z.int().describe('Sent, neither acknowledged nor dead again yet, inside the outcome window'),
});

const task = z.object({
  id: z.uuid(),
  status,
  source: z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) }),
  destination: z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) }).describe('Where the messages go: the source itself, or another source of its kind'),
  edit: z
    .object({ kind: z.enum(['edit', 'transform']), transform: z.unknown().optional(), cannotApplyCount: z.int().optional(), cannotApply: z.array(z.object({ id: z.string(), messageId: z.string(), why: z.string() })).optional() })
    .nullable()
    .describe('An edit or a bulk transform: the items send edited copies (versions of their dead letters)'),
  rule: z
    .object({ id: z.uuid(), name: z.string(), kind: z.enum(['after_wave', 'on_resolved']) })
    .nullable()
    .describe('The redrive rule that started it for its author (createdBy); null: started by hand'),
  selection: z.unknown().describe('As asked for; the items are its frozen result'),
  ratePerSecond: z.int(),
  ramp: z.object({ steps: z.array(z.int()), stepSeconds: z.int() }).nullable(),
  canary: z.boolean(),
  outcomeWindowSeconds: z.int().describe('How long a sent message is watched for a death before it counts as no death seen'),
  canaryWindowSeconds: z.int().describe('The same for the canary: the rest goes once it was acknowledged or this passed with no death seen'),
  reason: z.string().nullable(),
  pausedReason: z.string().nullable().describe('Why it is paused (by whom, or the circuit breaker / canary) or failed (its destination cannot be built)'),
  counts,
  verdict: z.enum(['worked', 'failing', 'mixed', 'no outcome yet']).describe('Did the redrive work?'),
  createdBy: z.string().nullable(),
  approvedBy: z.string().nullable(),
  createdAt: ts,
  approvedAt: ts.nullable(),
  startedAt: ts.nullable(),
  finishedAt: ts.nullable(),
  updatedAt: ts,
  drift: z.int().describe('Matching open dead letters that arrived after the start: not included'),
  loops: z.int(),
  outcomesDueAt: ts
    .nullable()
    .describe('Running with everything sent: when the last item awaiting an outcome becomes final, and so when the task completes unless it pauses'),
  canaryItem: z
    .object({ messageId: z.string(), state: z.string(), sentAt: ts, outcomeAt: ts.nullable(), nextSentAt: ts.nullable().describe('When the first message after the canary went') })
    .nullable()
    .describe('A canary task: its first message sent and its outcome'),
});

const preview = z.object({
  source: z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) }),
  count: z.int(),
  loops: z.int(),
  maxRedrives: z.int(),
  approvalThreshold: z.int(),
  needsApproval: z.boolean(),
  activeTaskId: z.uuid().nullable(),
  destination: z.string(),
});

const cannotApply = z.array(z.object({ id: z.string(), messageId: z.string(), why: z.string().describe('not JSON, path missing: …') }));
const transformPreview = z.object({
  source: z.object({ id: z.uuid(), name: z.string() }),
  total: z.int().describe('Open dead letters the selection holds'),
  applies: z.int().describe('Of those, the transform applies to this many: the task size'),
  cannotApplyCount: z.int(),
  cannotApply: cannotApply.describe('Up to 500 of those it cannot apply to, with why'),
  samples: z.array(z.object({ id: z.string(), messageId: z.string(), before: z.string(), after: z.string(), changes: z.unknown() })),
  needsApproval: z.boolean(),
  editApprovalThreshold: z.int(),
});

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
  schemas: { RedriveTask: schemaOf(task, 'output'), RedrivePreview: schemaOf(preview, 'output'), StartRedrive: schemaOf(startRedriveInput) },
  paths: {
    '/api/v1/redrives': {
      get: {
        tags: ['redrives'],
        summary: 'List redrive tasks, newest first',
        security,
        parameters: [
          q('status', 'A status, or active', { type: 'string', enum: ['active', ...status.options] }),
          q('source', 'Source name'),
          q('after', 'Keyset cursor: `next` of the previous page'),
          q('limit', 'Page size', { type: 'integer', minimum: 1, maximum: 200, default: 50 }),
        ],
        responses: {
          '200': { description: 'A page', content: jsonContent({ type: 'object', properties: { tasks: { type: 'array', items: ref('RedriveTask') }, next: { type: ['string', 'null'] } } }) },
          ...errors(401, 403, 422),
        },
      },
      post: {
        tags: ['redrives'],
        summary: 'Start a redrive task (support, lead, admin)',
        description:
          'The selection resolves to one source and is frozen into the task. Over the source approvalThreshold a support engineer’s task waits in pending_approval. One active task per source: a second answers 409 with details.activeTaskId. Every sent item ends within outcomeWindowSeconds (default 600; the canary: canaryWindowSeconds, default 60): acknowledged, dead again, or else no death seen; the task completes when every item is final.',
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
        responses: { '200': { description: 'The preview', content: jsonContent(schemaOf(transformPreview, 'output')) }, ...errors(400, 401, 403, 404, 415, 422) },
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
            content: jsonContent({ type: 'object', properties: { applies: { type: 'integer' }, cannotApplyCount: { type: 'integer' }, cannotApply: schemaOf(cannotApply, 'output'), waitsFor: { type: ['string', 'null'] }, task: ref('RedriveTask') } }),
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
        responses: { '200': { description: 'The task', content: jsonContent(ref('RedriveTask')) }, ...errors(401, 403, 404) },
      },
    },
    '/api/v1/redrives/{id}/series': {
      get: {
        tags: ['redrives'],
        summary: 'Sends and outcomes per second (the rate chart)',
        security,
        parameters: [id],
        responses: {
          '200': { description: 'Points, oldest first', content: jsonContent({ type: 'object', properties: { points: { type: 'array', items: { type: 'object' } } } }) },
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
