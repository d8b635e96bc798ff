// POST /api/v1/clusters/{id}/archive — archive every open dead letter of the cluster in the caller's sources, with { reason }; one audit event
import { api, pathParams } from '@/lib/auth/guard';
import { archiveCluster, archiveClusterInput, ClusterDecision } from '@/lib/clustering/archive-cluster';

export const POST = api(
  'deadletters.archive',
  {
    summary: 'Archive the whole cluster (support, lead, admin)',
    description: "Every open dead letter of the cluster in the caller's sources, in one transaction with one audit event naming the selection and the count.",
    tags: ['clusters'],
    responses: { 200: { description: 'Archived', view: ClusterDecision } },
    params: pathParams('id'),
    body: archiveClusterInput,
  },
  async ({ actor, params, body }) => {
    return Response.json(await archiveCluster(actor, params.id, body));
  },
);
