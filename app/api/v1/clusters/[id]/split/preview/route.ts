// POST /api/v1/clusters/{id}/split/preview — the parts a split by { by } would make, with their counts (lead, admin); changes nothing
import { jsonRoute, pathParams } from '@/lib/auth/guard';
import { previewSplit, splitPreviewInput, SplitPreview } from '@/lib/clustering/split-cluster';

export const POST = jsonRoute('clusters.split', ({ actor, params, body }) => previewSplit(actor, params.id, body), {
  summary: 'Preview a split by a field: the parts and their counts (lead, admin); changes nothing',
  tags: ['clusters'],
  responses: { 200: { description: 'The parts', view: SplitPreview } },
  params: pathParams('id'),
  body: splitPreviewInput,
  maxBytes: 16 * 1024,
});
