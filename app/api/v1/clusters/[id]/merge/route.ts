// POST /api/v1/clusters/{id}/merge — merge the cluster into another, { into, reason } (lead, admin); kept as an alias, audited
import { api, pathParams } from '@/lib/auth/guard';
import { mergeClusterInput, mergeClusters } from '@/lib/clustering/merge-clusters';

export const POST = api('clusters.merge', { params: pathParams('id'), body: mergeClusterInput }, async ({ actor, params, body }) => {
  return Response.json(await mergeClusters(actor, params.id, body));
});
