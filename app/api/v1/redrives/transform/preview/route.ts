// POST /api/v1/redrives/transform/preview — what a transform would do: { selection, transform } → count, samples, those it cannot apply to
import { jsonRoute } from '@/lib/auth/guard';
import { previewTransform, transformPreviewInput, TransformPreview } from '@/lib/redrive/edit';

export const POST = jsonRoute('deadletters.edit', ({ actor, body }) => previewTransform(actor, body), {
  summary: 'What a bulk transform would do: samples before and after, the count, those it cannot apply to (support, lead, admin)',
  tags: ['redrives'],
  responses: { 200: { description: 'The preview', view: TransformPreview } },
  errors: [400, 404],
  body: transformPreviewInput,
  maxBytes: 1 << 20,
});
