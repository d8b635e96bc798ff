// POST /api/v1/redrives/transform — a redrive task of transformed copies: { selection, transform: [{ op: set|rename|remove|header, … }], reason, destination?, ratePerSecond?, canary? }
import { api } from '@/lib/auth/guard';
import { readJsonBody } from '@/lib/http';
import { getRedriveTask } from '@/lib/redrive';
import { startTransform, type TransformInput } from '@/lib/redrive/edit';

export const POST = api('deadletters.edit', async (req, { actor }) => {
  const r = await startTransform(actor, (await readJsonBody(req, 1 << 20)) as TransformInput);
  return Response.json(
    { applies: r.applies, cannotApplyCount: r.cannotApplyCount, cannotApply: r.cannotApply, waitsFor: r.waitsFor, task: await getRedriveTask(actor, r.task.id) },
    { status: 201, headers: { Location: `/api/v1/redrives/${r.task.id}` } },
  );
});
