// POST /api/v1/clusters/{id}/archive — archive every open dead letter of the cluster in the caller's sources, with { reason }; one audit event
import { api, pathParams } from '@/lib/auth/guard';
import { archiveCluster, archiveClusterInput } from '@/lib/clustering/archive-cluster';

export const POST = api('deadletters.archive', { params: pathParams('id'), body: archiveClusterInput }, async ({ actor, params, body }) => {
  return Response.json(await archiveCluster(actor, params.id, body));
});
