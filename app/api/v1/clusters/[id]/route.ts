// GET /api/v1/clusters/{id} — one cluster: template, error type, top frame, per-source counts, samples and the hourly trend
import { api, pathParams } from '@/lib/auth/guard';
import { getCluster } from '@/lib/clustering/get-cluster';

export const GET = api('deadletters.read', { params: pathParams('id') }, async ({ actor, params }) => {
  return Response.json(await getCluster(actor, params.id));
});
