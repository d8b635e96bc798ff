// POST /api/v1/clusters/{id}/split/preview — the parts a split by { by } would make, with their counts (lead, admin); changes nothing
import { jsonRoute } from '@/lib/auth/guard';
import { oneClusterRoute } from '@/lib/clustering/route-shapes';
import { previewSplit, splitPreviewInput, SplitPreview } from '@/lib/clustering/split-cluster';

export const POST = jsonRoute('clusters.split', ({ actor, params, body }) => previewSplit(actor, params.id, body), {
  ...oneClusterRoute,
  summary: 'Preview a split by a field: the parts and their counts (lead, admin); changes nothing',
  responses: { 200: { description: 'The parts', view: SplitPreview } },
  body: splitPreviewInput,
  maxBytes: 16 * 1024,
});
