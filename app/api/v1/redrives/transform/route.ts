// POST /api/v1/redrives/transform — a redrive task of transformed copies: { selection, transform: [{ op: set|rename|remove|header, … }], reason, destination?, ratePerSecond?, canary? }
import { familyRoute } from '@/lib/auth/guard';
import { startedTask, taskStartRoute } from '@/lib/redrive/route-shapes';
import { startTransform, transformInput, TransformStartedView } from '@/lib/redrive/edit';

export const POST = familyRoute(
  taskStartRoute(transformInput, TransformStartedView),
  'deadletters.edit',
  async ({ actor, body }) => {
    const r = await startTransform(actor, body);
    return startedTask(actor, r.task.id, { applies: r.applies, cannotApplyCount: r.cannotApplyCount, cannotApply: r.cannotApply, waitsFor: r.waitsFor });
  },
  {
    summary: 'Start a redrive task of transformed copies (support, lead, admin)',
    description:
      'Steps: set, rename or remove a JSON path; replace a header. Each copy is stored as a version of its dead letter with its own SHA-256; those the transform cannot apply to (not JSON, path missing) stay open, are listed on the task and are not sent. A transform of the source editApprovalThreshold dead letters or more (default 1) waits in pending_approval for another lead of the team or an admin. Audited as redrive.transform.',
  },
);
