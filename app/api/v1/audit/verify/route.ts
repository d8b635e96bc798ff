// GET /api/v1/audit/verify — recompute the hash chain and hold it to the signed checkpoints, list every break
import { jsonRoute } from '@/lib/auth/guard';
import { authorize } from '@/lib/auth';
import { forbidden } from '@/lib/errors';
import { log } from '@/lib/log';
import { verifyChain } from '@/lib/audit';
import { ChainVerdictView } from '@/lib/audit/verify';

export const GET = jsonRoute(
  'audit.read',
  async ({ actor }) => {
    // The chain spans every team; only roles that read the whole trail may verify it.
    if (authorize(actor, 'audit.read') !== 'all') {
      log.warn({ userId: actor.userId, role: actor.role, permission: 'audit.read', scope: 'all' }, 'permission denied');
      throw forbidden('Verifying the whole trail needs the auditor or admin role');
    }
    const r = await verifyChain();
    return {
      ok: r.ok,
      checked: r.checked,
      ...(r.firstBrokenId ? { firstBrokenId: r.firstBrokenId, problem: r.problem } : {}),
      breaks: r.breaks.map(({ id, kind, problem, acknowledged }) => ({ id, kind, problem, ...(acknowledged ? { acknowledged } : {}) })),
      breakCount: r.breakCount,
      unacknowledged: r.unacknowledged,
      ...(r.checkpoint ? { checkpoint: r.checkpoint } : {}),
      ...(r.invalidCheckpoints ? { invalidCheckpoints: r.invalidCheckpoints } : {}),
    };
  },
  {
    summary: 'Verify the whole hash chain against the signed checkpoints (auditor, admin)',
    description:
      'Recomputes every link in id order and lists every break (it goes on past one, so a change after a first break still shows); a cut tail or a recomputed chain shows against the checkpoints. ok is true when no break is left unacknowledged. A lead (team-scoped) gets 403.',
    tags: ['audit'],
    responses: { 200: { description: 'The verdict', view: ChainVerdictView } },
  },
);
