// POST /api/v1/clusters/{id}/split/preview — the parts a split by { by } would make, with their counts (lead, admin); changes nothing
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { previewSplit } from '@/lib/clustering/split-cluster';

export const POST = api<{ id: string }>('clusters.split', async (req, { actor, params }) => {
  return Response.json(await previewSplit(actor, params.id, (await readJsonBody(req, 16 * 1024)) as Parameters<typeof previewSplit>[2]));
});
