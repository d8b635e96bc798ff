// POST /api/v1/clusters/{id}/archive — archive every open dead letter of the cluster in the caller's sources, with { reason }; one audit event
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { archiveCluster, archiveClusterInput, ClusterDecision } from '@/lib/clustering/archive-cluster';

export const POST = jsonRoute('deadletters.archive', ({ actor, params, body }) => archiveCluster(actor, params.id, body), {
  ...oneClusterRoute,
  summary: 'Archive the whole cluster (support, lead, admin)',
  description: "Every open dead letter of the cluster in the caller's sources, in one transaction with one audit event naming the selection and the count.",
  responses: { 200: { description: 'Archived', view: ClusterDecision } },
  body: archiveClusterInput,
});
