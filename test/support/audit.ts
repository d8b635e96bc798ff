// What a superuser can do to the audit trail behind its append-only triggers: run SQL with them
// switched off. The tamper-evidence tests use it to play the forger. Also the trail as tests read it.
import type { Prisma } from '@/generated/prisma/client';
import { db } from '@/lib/db';

/** The audit events `where` selects, oldest first. */
export const auditTrail = (where: Prisma.AuditEventWhereInput) => db().auditEvent.findMany({ where, orderBy: { id: 'asc' } });

/** Each event's action and who did it, in order. */
export const whoDidWhat = (events: { action: string; actorEmail: string }[]) => events.map((e) => [e.action, e.actorEmail]);

export async function asSuperuser(...statements: string[]): Promise<void> {
  await db().$transaction([
    db().$executeRawUnsafe('ALTER TABLE audit_events DISABLE TRIGGER USER'),
    ...statements.map((s) => db().$executeRawUnsafe(s)),
    db().$executeRawUnsafe('ALTER TABLE audit_events ENABLE TRIGGER USER'),
  ]);
}
