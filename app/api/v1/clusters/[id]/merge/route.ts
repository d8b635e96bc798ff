// POST /api/v1/clusters/{id}/merge — merge the cluster into another, { into, reason } (lead, admin); kept as an alias, audited
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { mergeClusters, type MergeClusterInput } from '@/lib/clustering/merge-clusters';

export const POST = api<{ id: string }>('clusters.merge', async (req, { actor, params }) => {
  return Response.json(await mergeClusters(actor, params.id, (await readJsonBody(req)) as MergeClusterInput));
});
