// POST /api/v1/dead-letters/{id}/edit — redrive an edited copy: { payload | payloadBase64, headers?, reason, revealId?, destination?, ratePerSecond? }
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { getRedriveTask } from '@/lib/redrive';
import { editDeadLetter, type EditInput } from '@/lib/redrive/edit';

export const POST = api<{ id: string }>('deadletters.edit', async (req, { actor, params }) => {
  // Room for a payload at the default 10 MiB limit, base64-encoded.
  const r = await editDeadLetter(actor, params.id, (await readJsonBody(req, 15 << 20)) as EditInput);
  const v = r.versions[0]!;
  return Response.json(
    {
      version: { id: v.id.toString(), version: v.version, sha256: v.sha256, size: v.size },
      originalSha256: r.originalSha256,
      diff: r.diff,
      waitsFor: r.waitsFor,
      task: await getRedriveTask(actor, r.task.id),
    },
    { status: 201, headers: { Location: `/api/v1/redrives/${r.task.id}` } },
  );
});
