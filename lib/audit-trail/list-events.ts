// Read side of the trail: filtered, keyset-paged newest first, scoped by team for leads.
import { db, pg } from '@/lib/db';
import type { Principal } from '@/lib/auth';
import { notFound } from '@/lib/errors';
import { auditTeamScope, auditWhere, type AuditFilter } from '@/lib/audit-trail/filter';

export const AUDIT_PAGE_SIZE = 50;

export async function listAuditEvents(actor: Principal, opts: { filter?: AuditFilter; before?: bigint; limit?: number; action?: string } = {}) {
  const where = await auditWhere(actor, { ...opts.filter, ...(opts.action ? { action: opts.action } : {}) });
  return db().auditEvent.findMany({
    where: opts.before ? { AND: [where, { id: { lt: opts.before } }] } : where,
    orderBy: { id: 'desc' },
    take: Math.min(opts.limit ?? AUDIT_PAGE_SIZE, 1000),
  });
}

/** One event; another team's event answers 404 for a lead, as if it did not exist. */
export async function getAuditEvent(actor: Principal, id: bigint) {
  const teamId = auditTeamScope(actor);
  const event = await db().auditEvent.findFirst({ where: { id, ...(teamId ? { teamId } : {}) } });
  if (!event) throw notFound('No such audit event');
  return event;
}

/** Every action name in the trail, for the filter's suggestions: a loose index scan on (action, id). */
export async function listAuditActions(): Promise<string[]> {
  const rows = await pg()<{ action: string }[]>`
    WITH RECURSIVE a(action) AS (
      SELECT min(action) FROM audit_events
      UNION ALL
      SELECT (SELECT min(action) FROM audit_events WHERE action > a.action) FROM a WHERE a.action IS NOT NULL
    )
    SELECT action FROM a WHERE action IS NOT NULL`;
  return rows.map((r) => r.action);
}
