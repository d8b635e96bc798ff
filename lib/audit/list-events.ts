// Read side of the trail: keyset-paged, scoped by team for leads.
import { db } from '@/lib/db';
import { authorize, type Principal } from '@/lib/auth';
import { isSystem } from '@/lib/auth';

export async function listAuditEvents(actor: Principal, opts: { before?: bigint; limit?: number; action?: string } = {}) {
  const scope = authorize(actor, 'audit.read');
  const teamId = scope === 'team' && !isSystem(actor) ? actor.teamId : undefined;
  return db().auditEvent.findMany({
    where: {
      ...(teamId ? { teamId } : {}),
      ...(opts.before ? { id: { lt: opts.before } } : {}),
      ...(opts.action ? { action: opts.action } : {}),
    },
    orderBy: { id: 'desc' },
    take: Math.min(opts.limit ?? 50, 500),
  });
}
