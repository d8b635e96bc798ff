// OpenAPI: clusters — the handful of causes behind the dead letters (session cookie or personal API token).
import { z } from 'zod';
import { DEAD_LETTER_STATUSES } from '@/lib/deadletters/filters';
import { archiveClusterInput } from '@/lib/clustering/archive-cluster';
import { MAX_CLUSTER_PAGE } from '@/lib/clustering/list-clusters';
import { mergeClusterInput } from '@/lib/clustering/merge-clusters';
import { errors, idParam, jsonContent, ref, schemaOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];
const ts = z.iso.datetime();
const source = z.object({ id: z.uuid(), name: z.string() });

const summary = z.object({
  id: z.uuid(),
  fingerprint: z.string(),
  template: z.string().describe('The readable template: variable parts as <*>'),
  errorType: z.string().nullable(),
  topFrame: z.string().nullable().describe('Top in-app stack frame: function (file)'),
  count: z.int().describe("Dead letters in the caller's sources, all statuses"),
  openCount: z.int(),
  firstSeen: ts,
  lastSeen: ts,
  ratePerHour: z.int().describe('Dead letters in the last 60 minutes'),
  sparkline: z.array(z.int()).describe('Dead letters per hour over the last 24 hours, oldest first'),
  sources: z.array(source),
  ownership: z
    .object({ status: z.enum(['open', 'investigating', 'waiting_for_fix', 'on_hold', 'resolved']), assignee: z.string().nullable(), holdUntil: ts.nullable(), regressedAt: ts.nullable() })
    .describe('Who is on it (GET /api/v1/clusters/{id}/ownership for the whole of it)'),
});

const page = z.object({ clusters: z.array(summary), nextCursor: z.string().nullable() });

const detail = summary.omit({ firstSeen: true, lastSeen: true, sources: true, ownership: true }).extend({
  firstTemplate: z.string().describe('Template of the fingerprint the cluster started from'),
  aliasOf: z.uuid().nullable().describe('The id asked for, when it was merged into this cluster'),
  firstSeen: ts.nullable(),
  lastSeen: ts.nullable(),
  sources: z.array(source.extend({ count: z.int(), openCount: z.int(), firstSeen: ts, lastSeen: ts })),
  merged: z.array(z.object({ id: z.uuid(), fingerprint: z.string(), template: z.string() })).describe('Fingerprints merged into it'),
  samples: z.array(
    z.object({ id: z.string(), source: z.string(), status: z.enum(DEAD_LETTER_STATUSES), errorType: z.string().nullable(), errorMessage: z.string().nullable(), deadAt: ts }),
  ),
  trend: z.object({ from: ts, counts: z.array(z.int()).describe('Dead letters per hour over 7 days, oldest first') }),
});

const decided = z.object({ clusterId: z.uuid(), count: z.int() });
const merged = decided.extend({ into: z.uuid() });

const q = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'query', schema, description });
const id = idParam('id', 'Cluster id (an alias answers as the cluster it was merged into)');

export const clustersArea: OpenApiArea = {
  tag: {
    name: 'clusters',
    description:
      "Dead letters grouped by cause (error type, masked message template, top in-app frame). Team-scoped roles see their sources' share only; another team's cluster answers 404. Members: GET /api/v1/dead-letters?clusterId=….",
  },
  schemas: { ClusterSummary: schemaOf(summary, 'output'), ClusterPage: schemaOf(page, 'output'), Cluster: schemaOf(detail, 'output') },
  paths: {
    '/api/v1/clusters': {
      get: {
        tags: ['clusters'],
        summary: 'List clusters, newest wave first (keyset pages)',
        security,
        parameters: [
          q('source', 'Source names, comma-separated'),
          q('errorType', 'Exact error type'),
          q('q', 'Text in the template'),
          q('state', 'open: with open dead letters; all: every cluster', { type: 'string', enum: ['open', 'all'], default: 'open' }),
          q('owner', 'mine: assigned to the caller; unassigned; on_hold', { type: 'string', enum: ['mine', 'unassigned', 'on_hold'] }),
          q('ownerStatus', 'Ownership status', { type: 'string', enum: ['open', 'investigating', 'waiting_for_fix', 'on_hold', 'resolved'] }),
          q('cursor', 'nextCursor of the previous page'),
          q('limit', 'Page size', { type: 'integer', minimum: 1, maximum: MAX_CLUSTER_PAGE, default: 50 }),
        ],
        responses: { '200': { description: 'A page', content: jsonContent(ref('ClusterPage')) }, ...errors(400, 401, 403, 422) },
      },
    },
    '/api/v1/clusters/{id}': {
      get: {
        tags: ['clusters'],
        summary: 'One cluster: template, error type, top frame, per-source counts, samples, hourly trend',
        security,
        parameters: [id],
        responses: { '200': { description: 'The cluster', content: jsonContent(ref('Cluster')) }, ...errors(401, 403, 404) },
      },
    },
    '/api/v1/clusters/{id}/archive': {
      post: {
        tags: ['clusters'],
        summary: 'Archive the whole cluster (support, lead, admin)',
        description: "Every open dead letter of the cluster in the caller's sources, in one transaction with one audit event naming the selection and the count.",
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(archiveClusterInput)) },
        responses: { '200': { description: 'Archived', content: jsonContent(schemaOf(decided, 'output')) }, ...errors(401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/merge': {
      post: {
        tags: ['clusters'],
        summary: 'Merge the cluster into another (lead, admin)',
        description: 'The cluster stays as an alias: its members and counts move, and new arrivals with its fingerprint count into `into`. Audited.',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(mergeClusterInput)) },
        responses: { '200': { description: 'Merged', content: jsonContent(schemaOf(merged, 'output')) }, ...errors(401, 403, 404, 409, 415, 422) },
      },
    },
  },
};
