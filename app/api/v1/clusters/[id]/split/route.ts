// POST /api/v1/clusters/{id}/split — split the cluster by { by, reason } (lead, admin): the largest part keeps the id; audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { splitCluster, type SplitClusterInput } from '@/lib/clustering/split-cluster';

export const POST = api<{ id: string }>('clusters.split', async (req, { actor, params }) => {
  return Response.json(await splitCluster(actor, params.id, (await readJsonBody(req, 16 * 1024)) as SplitClusterInput));
});
