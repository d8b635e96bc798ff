// OpenAPI: clusters — the handful of causes behind the dead letters (session cookie or personal API token).
// Response bodies are the views of lib/clustering (docs/style.md "Views").
import { ClusterDecision, archiveClusterInput } from '@/lib/clustering/archive-cluster';
import { ClusterDetail } from '@/lib/clustering/get-cluster';
import { ClusterPage, ClusterSummary, MAX_CLUSTER_PAGE } from '@/lib/clustering/list-clusters';
import { ClusterMerge, mergeClusterInput } from '@/lib/clustering/merge-clusters';
import { MergeSuggestionsView } from '@/lib/clustering/merge-suggestions';
import { SplitPreview, splitClusterInput, splitPreviewInput } from '@/lib/clustering/split-cluster';
import { UndoneMerge, undoMergeInput } from '@/lib/clustering/undo-merge';
import { errors, idParam, jsonContent, ref, schemaOf, viewOf, type OpenApiArea } from './area';

const security = [{ apiToken: [] }, { session: [] }];

const q = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ name, in: 'query', schema, description });
const id = idParam('id', 'Cluster id (an alias answers as the cluster it was merged into)');

export const clustersArea: OpenApiArea = {
  tag: {
    name: 'clusters',
    description:
      "Dead letters grouped by cause (error type, masked message template, top in-app frame). Team-scoped roles see their sources' share only; another team's cluster answers 404. Members: GET /api/v1/dead-letters?clusterId=….",
  },
  schemas: { ClusterSummary: viewOf(ClusterSummary), ClusterPage: viewOf(ClusterPage), Cluster: viewOf(ClusterDetail) },
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
        responses: { '200': { description: 'Archived', content: jsonContent(viewOf(ClusterDecision)) }, ...errors(401, 403, 404, 415, 422) },
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
        responses: { '200': { description: 'Merged', content: jsonContent(viewOf(ClusterMerge)) }, ...errors(401, 403, 404, 409, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/split/preview': {
      post: {
        tags: ['clusters'],
        summary: 'Preview a split by a field: the parts and their counts (lead, admin); changes nothing',
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(splitPreviewInput)) },
        responses: { '200': { description: 'The parts', content: jsonContent(viewOf(SplitPreview)) }, ...errors(401, 403, 404, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/split': {
      post: {
        tags: ['clusters'],
        summary: 'Split the cluster by a field: error type, top frame, a header or a JSON path of the payload (lead, admin)',
        description:
          "The largest part keeps the cluster's id; the other parts are new clusters linking back to it (splitFromId). Members change cluster only, with their counts; new arrivals stay split: one with a split-off value counts into its part, any other value into the cluster that kept the id. At most 50,000 members and 50 parts. Audited with the counts before and after.",
        security,
        parameters: [id],
        requestBody: { required: true, content: jsonContent(schemaOf(splitClusterInput)) },
        responses: { '200': { description: 'Split', content: jsonContent(viewOf(SplitPreview)) }, ...errors(401, 403, 404, 415, 422) },
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
        responses: { '200': { description: 'Undone', content: jsonContent(viewOf(UndoneMerge)) }, ...errors(401, 403, 404, 409, 415, 422) },
      },
    },
    '/api/v1/clusters/{id}/merge-suggestions': {
      get: {
        tags: ['clusters'],
        summary: 'Clusters of the same error type and frame whose templates differ only in positions proven variable elsewhere (lead, admin)',
        security,
        parameters: [id],
        responses: { '200': { description: 'Suggestions', content: jsonContent(viewOf(MergeSuggestionsView)) }, ...errors(401, 403, 404) },
      },
    },
  },
};
