// GET /api/v1/clusters/{id} — one cluster: template, error type, top frame, per-source counts, samples and the hourly trend
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { getCluster, ClusterDetail } from '@/lib/clustering/get-cluster';

export const GET = jsonRoute('deadletters.read', ({ actor, params }) => getCluster(actor, params.id), {
  ...oneClusterRoute,
  summary: 'One cluster: template, error type, top frame, per-source counts, samples, hourly trend',
  responses: { 200: { description: 'The cluster', view: ClusterDetail } },
});
