// POST /api/v1/redrives/transform — a redrive task of transformed copies: { selection, transform: [{ op: set|rename|remove|header, … }], reason, destination?, ratePerSecond?, canary? }
import { api } from '@/lib/auth/guard';
import { getRedriveTask } from '@/lib/redrive';
import { startTransform, transformInput } from '@/lib/redrive/edit';

export const POST = api('deadletters.edit', { body: transformInput, maxBytes: 1 << 20 }, async ({ actor, body }) => {
  const r = await startTransform(actor, body);
  return Response.json(
    { applies: r.applies, cannotApplyCount: r.cannotApplyCount, cannotApply: r.cannotApply, waitsFor: r.waitsFor, task: await getRedriveTask(actor, r.task.id) },
    { status: 201, headers: { Location: `/api/v1/redrives/${r.task.id}` } },
  );
});
