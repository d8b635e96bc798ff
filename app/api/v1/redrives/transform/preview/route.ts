// POST /api/v1/redrives/transform/preview — what a transform would do: { selection, transform } → count, samples, those it cannot apply to
import { jsonRoute } from '@/lib/auth/guard';
import { redrivePreviewRoute } from '@/lib/redrive/route-shapes';
import { previewTransform, transformPreviewInput, TransformPreview } from '@/lib/redrive/edit';

export const POST = jsonRoute('deadletters.edit', ({ actor, body }) => previewTransform(actor, body), {
  ...redrivePreviewRoute,
  summary: 'What a bulk transform would do: samples before and after, the count, those it cannot apply to (support, lead, admin)',
  responses: { 200: { description: 'The preview', view: TransformPreview } },
  body: transformPreviewInput,
  maxBytes: 1 << 20,
});
