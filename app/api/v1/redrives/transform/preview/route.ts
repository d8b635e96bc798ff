// POST /api/v1/redrives/transform/preview — what a transform would do: { selection, transform } → count, samples, those it cannot apply to
import { api } from '@/lib/auth/guard';
import { previewTransform, transformPreviewInput } from '@/lib/redrive/edit';

export const POST = api('deadletters.edit', { body: transformPreviewInput, maxBytes: 1 << 20 }, async ({ actor, body }) => {
  return Response.json(await previewTransform(actor, body));
});
