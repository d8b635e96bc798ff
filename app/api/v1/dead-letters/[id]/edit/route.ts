// POST /api/v1/dead-letters/{id}/edit — redrive an edited copy: { payload | payloadBase64, headers?, reason, revealId?, destination?, ratePerSecond? }
import { api, pathParams } from '@/lib/auth/guard';
import { startedTask } from '@/lib/redrive/route-shapes';
import { editDeadLetter, editInput, EditedView } from '@/lib/redrive/edit';

// Room for a payload at the default 10 MiB limit, base64-encoded.
export const POST = api(
  'deadletters.edit',
  {
    summary: 'Edit and redrive: redrive an edited copy of the payload and headers (support, lead, admin)',
    description:
      'The copy is stored as a version of the dead letter (its own SHA-256); the original bytes stay as they are and downloadable. The redrive task of one item waits in pending_approval for another lead of the team or an admin when the source editApprovalThreshold is 1 (the default). A masked payload needs a revealId (POST …/reveal) first (403 without). Audited as deadletter.edit with both hashes and the diff.',
    tags: ['dead letters'],
    responses: { 201: { description: 'The version and its task', view: EditedView } },
    errors: [400, 409],
    params: pathParams('id'),
    body: editInput,
    maxBytes: 15 << 20,
  },
  async ({ actor, params, body }) => {
    const r = await editDeadLetter(actor, params.id, body);
    const v = r.versions[0]!;
    return startedTask(actor, r.task.id, {
      version: { id: v.id.toString(), version: v.version, sha256: v.sha256, size: v.size },
      originalSha256: r.originalSha256,
      diff: r.diff,
      waitsFor: r.waitsFor,
    });
  },
);
