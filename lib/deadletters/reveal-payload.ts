// Revealing a masked payload: a permission (payload.reveal) with a required reason, and an audit event.
// The page shows the clear payload only while a recent reveal event of this user for this dead letter
// exists, so every look at sensitive data is on the trail.
import { db, sql as pg } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, can, isSystem, type Principal } from '@/lib/auth';
import { reasonSchema } from './decide';
import { deadLetterOwner, parseDeadLetterId } from './get-dead-letter';

/** How long one reveal lets its user see the clear payload on the page. */
export const REVEAL_TTL_SECONDS = 15 * 60;

export async function revealPayload(actor: Principal, idParam: string, reasonInput: string, via: 'page' | 'download' | 'export' = 'page') {
  authorize(actor, 'payload.reveal');
  const reason = reasonSchema.parse(reasonInput);
  const p = await deadLetterOwner(actor, idParam, 'payload.reveal');
  const event = await db().$transaction((tx) =>
    append(tx, {
      actor: auditActor(actor),
      action: 'payload.reveal',
      targetType: 'deadletter',
      targetId: p.id.toString(),
      sourceId: p.sourceId,
      teamId: p.teamId,
      reason,
      after: { via },
    }),
  );
  return { eventId: event.id.toString() };
}

/** Whether `eventId` is this user's reveal of this dead letter, recent enough to still show it clear. */
export async function activeReveal(actor: Principal, idParam: string, eventId: string | undefined): Promise<boolean> {
  if (!eventId || !/^\d{1,19}$/.test(eventId) || isSystem(actor) || !can(actor.role, 'payload.reveal')) return false;
  const id = parseDeadLetterId(idParam);
  const rows = await pg()`
    SELECT 1 FROM audit_events
    WHERE id = ${eventId}::bigint AND action = 'payload.reveal' AND target_type = 'deadletter' AND target_id = ${id.toString()}
      AND actor_id = ${actor.userId}::uuid AND at > now() - make_interval(secs => ${REVEAL_TTL_SECONDS})`;
  return rows.length > 0;
}
