// An admin acknowledges a break in the audit chain, saying why (the event a bug or a bad input left
// hashed over other text than was stored, say): verify then reports it as known and judges the
// chain after it on its own. The acknowledgement holds the event's hashes as they are now, so a
// later change to it is a new break; it is itself an audit event, in the same transaction.
import { z } from 'zod';
import { append, verifyChain } from '@/lib/audit';
import { GENESIS_HASH } from '@/lib/audit/canonical';
import { auditActor, authorize, type Actor } from '@/lib/auth';
import { db } from '@/lib/db';
import { AppError, notFound } from '@/lib/errors';

export const acknowledgeBreakInput = z.object({
  reason: z.string().trim().min(1, 'a reason is required').max(1000).describe('Why this break is known and harmless: shown beside it in every verify'),
});

/** The answer: the event acknowledged, its open breaks, and the acknowledgement's own event (docs/style.md "Views"). */
export const AcknowledgedBreak = z.strictObject({ eventId: z.string(), kinds: z.array(z.string()), problems: z.array(z.string()), auditEventId: z.string() });
export type AcknowledgedBreak = z.infer<typeof AcknowledgedBreak>;

export async function acknowledgeAuditBreak(actor: Actor, eventId: string, reason: string): Promise<AcknowledgedBreak> {
  authorize(actor, 'admin.manage');
  if (!/^\d{1,19}$/.test(eventId)) throw notFound(`No audit event ${eventId}`);
  const r = await verifyChain();
  const open = r.breaks.filter((b) => b.id === eventId && !b.acknowledged);
  if (open.length === 0) {
    const exists = await db().auditEvent.count({ where: { id: BigInt(eventId) } });
    if (!exists && !r.breaks.some((b) => b.id === eventId)) throw notFound(`No audit event ${eventId}`);
    throw new AppError('conflict', `Event #${eventId} is not an unacknowledged break in the chain`);
  }
  const by = auditActor(actor);
  const event = await db().$transaction(async (tx) => {
    for (const b of open) {
      await tx.auditBreakAck.create({
        data: {
          eventId: BigInt(eventId),
          kind: b.kind,
          storedHash: b.storedHash ?? GENESIS_HASH,
          computedHash: b.computedHash ?? GENESIS_HASH,
          prevHash: b.prevHash ?? GENESIS_HASH,
          problem: b.problem,
          reason,
          byUserId: by.userId,
          byEmail: by.email,
        },
      });
    }
    return append(tx, {
      actor: by,
      action: 'audit.break.acknowledge',
      targetType: 'audit_event',
      targetId: eventId,
      reason,
      after: { breaks: open.map((b) => ({ kind: b.kind, problem: b.problem, storedHash: b.storedHash ?? null, computedHash: b.computedHash ?? null })) },
    });
  });
  return { eventId, kinds: open.map((b) => b.kind), problems: open.map((b) => b.problem), auditEventId: event.id.toString() };
}
