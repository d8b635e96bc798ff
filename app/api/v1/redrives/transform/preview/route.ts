// POST /api/v1/redrives/transform/preview — what a transform would do: { selection, transform } → count, samples, those it cannot apply to
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { previewTransform } from '@/lib/redrive/edit';

export const POST = api('deadletters.edit', async (req, { actor }) => {
  const body = (await readJsonBody(req, 1 << 20)) as { selection: never; transform: unknown };
  return Response.json(await previewTransform(actor, body));
});
