// POST /api/v1/clusters/{id}/split — split the cluster by { by, reason } (lead, admin): the largest part keeps the id; audited
import { api, pathParams } from '@/lib/auth/guard';
import { splitCluster, splitClusterInput } from '@/lib/clustering/split-cluster';

export const POST = api('clusters.split', { params: pathParams('id'), body: splitClusterInput, maxBytes: 16 * 1024 }, async ({ actor, params, body }) => {
  return Response.json(await splitCluster(actor, params.id, body));
});
