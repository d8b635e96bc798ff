// POST /api/v1/clusters/{id}/archive — archive every open dead letter of the cluster in the caller's sources, with { reason }; one audit event
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { archiveCluster, type ArchiveClusterInput } from '@/lib/clustering/archive-cluster';

export const POST = api<{ id: string }>('deadletters.archive', async (req, { actor, params }) => {
  return Response.json(await archiveCluster(actor, params.id, (await readJsonBody(req)) as ArchiveClusterInput));
});
