// OpenAPI: clusters — the handful of causes behind the dead letters (session cookie or personal API token).
import { z } from 'zod';
import { DEAD_LETTER_STATUSES } from '@/lib/deadletters/filters';
import { archiveClusterInput } from '@/lib/clustering/archive-cluster';
import { MAX_CLUSTER_PAGE } from '@/lib/clustering/list-clusters';
import { mergeClusterInput } from '@/lib/clustering/merge-clusters';
import { splitClusterInput, splitPreviewInput } from '@/lib/clustering/split-cluster';
import { undoMergeInput } from '@/lib/clustering/undo-merge';
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
  groupedBy: z.string().nullable().describe("A grouping rule's or a split's values that tell it apart, e.g. $.type=order.created"),
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
  splitFromId: z.uuid().nullable().describe('The cluster this one was split off, if it was'),
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
const splitPart = z.object({
  value: z.string().describe("The field's value of this part's members"),
  count: z.int(),
  openCount: z.int(),
  keepsId: z.boolean().describe("The largest part keeps the cluster's id"),
  clusterId: z.uuid().optional().describe("After a split: the part's cluster (the others link back with splitFromId)"),
});
const split = z.object({ clusterId: z.uuid(), by: z.string(), total: z.int(), parts: z.array(splitPart) });
const unmerged = z.object({ clusterId: z.uuid().describe('The cluster restored'), from: z.uuid().describe('The cluster it had been merged into'), count: z.int() });
const suggestions = z.object({
  suggestions: z.array(
    z.object({
      id: z.uuid(),
      template: z.string(),
      count: z.int(),
      openCount: z.int(),
      positions: z.array(z.int()).describe('Token positions that differ (0-based)'),
      evidence: z.string().describe('A pattern elsewhere with a mask at those positions'),
    }),
  ),
});

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
    '/api/v1/clusters/{id}/split/preview': {
      post: {
        tags: ['clusters'],
        summary: 'Preview a split by a field: the parts and their counts (lead, admin); changes nothing',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(splitPreviewInput)) },
        responses: { '200': { description: 'The parts', content: jsonContent(schemaOf(split, 'output')) }, ...errors(401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/split': {
      post: {
        tags: ['clusters'],
        summary: 'Split the cluster by a field: error type, top frame, a header or a JSON path of the payload (lead, admin)',
        description:
          "The largest part keeps the cluster's id; the other parts are new clusters linking back to it (splitFromId). Members change cluster only, with their counts; new arrivals with the fingerprint keep counting into the cluster that kept the id (a grouping rule splits those). At most 50,000 members and 50 parts. Audited with the counts before and after.",
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(splitClusterInput)) },
        responses: { '200': { description: 'Split', content: jsonContent(schemaOf(split, 'output')) }, ...errors(401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/unmerge': {
      post: {
        tags: ['clusters'],
        summary: 'Undo the merge of this cluster into another (lead, admin)',
        description: 'Both clusters are restored with their counts; members that arrived since the merge go back by fingerprint. Audited.',
        security,
        parameters: [idParam('id', 'The cluster that was merged away (now an alias)')],
        requestBody: { required: true, content: jsonContent(schemaOf(undoMergeInput)) },
        responses: { '200': { description: 'Undone', content: jsonContent(schemaOf(unmerged, 'output')) }, ...errors(401, 403, 404, 409, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/merge-suggestions': {
      get: {
        tags: ['clusters'],
        summary: 'Clusters of the same error type and frame whose templates differ only in positions proven variable elsewhere (lead, admin)',
        security,
        parameters: [id],
        responses: { '200': { description: 'Suggestions', content: jsonContent(schemaOf(suggestions, 'output')) }, ...errors(401, 403, 404) },
      },
    },
  },
};
