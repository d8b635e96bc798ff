// Revealing a masked payload: a permission (payload.reveal) with a required reason, and an audit event.
// The page shows the clear payload only while a recent reveal event of this user for this dead letter
// exists, so every look at sensitive data is on the trail.
import { z } from 'zod';
import { isoTime } from '@/lib/wire';
import { db, pg } from '@/lib/db';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, type Principal } from '@/lib/auth';
import { AppError, forbidden } from '@/lib/errors';
import { canReveal } from '@/lib/masking';
import { parseReason } from './decide';
import { deadLetterOwner, parseDeadLetterId } from './get-dead-letter';

/** How long one reveal lets its user see the clear payload on the page. */
export const REVEAL_TTL_SECONDS = 15 * 60;

/** POST /api/v1/dead-letters/{id}/reveal: the reveal id for ?reveal= on the payload routes. */
export const RevealView = z.object({ revealId: z.string(), expiresAt: isoTime.describe(`${REVEAL_TTL_SECONDS / 60} minutes from now`) });

export async function revealPayload(actor: Principal, idParam: string, reasonInput: string, via: 'page' | 'download' | 'export' = 'page') {
  authorize(actor, 'payload.reveal');
  const reason = parseReason(reasonInput);
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

/**
 * A search inside masked values is a reveal too (a match tells whether a dead letter holds a value):
 * POST /api/v1/dead-letters/search-reveal with a reason, then ?reveal= on the list for the same
 * REVEAL_TTL_SECONDS. The event names the user and their scope, never what they search for, which
 * would put the value itself on the trail.
 */
export async function revealSearch(actor: Principal, reasonInput: string) {
  authorize(actor, 'payload.reveal');
  const reason = parseReason(reasonInput);
  const event = await db().$transaction((tx) =>
    append(tx, {
      actor: auditActor(actor),
      action: 'payload.reveal',
      targetType: 'search',
      targetId: isSystem(actor) ? 'system' : actor.userId,
      teamId: isSystem(actor) ? null : actor.teamId,
      reason,
      after: { via: 'search' },
    }),
  );
  return { eventId: event.id.toString() };
}

/** Whether `eventId` is this user's recent search reveal; a 422 naming `reveal` when it is not. */
export async function requireSearchReveal(actor: Principal, eventId: string): Promise<void> {
  const ok =
    /^\d{1,19}$/.test(eventId) &&
    !isSystem(actor) &&
    canReveal(actor) &&
    (
      await pg()`
      SELECT 1 FROM audit_events
      WHERE id = ${eventId}::bigint AND action = 'payload.reveal' AND target_type = 'search'
        AND actor_id = ${actor.userId}::uuid AND at > now() - make_interval(secs => ${REVEAL_TTL_SECONDS})`
    ).length > 0;
  if (!ok) {
    throw new AppError(
      'unprocessable',
      `reveal: not a search reveal of yours from the last ${REVEAL_TTL_SECONDS / 60} minutes; POST /api/v1/dead-letters/search-reveal with { "reason": … } for a new one`,
      {
        field: 'reveal',
      },
    );
  }
}

/** Whether `eventId` is this user's reveal of this dead letter, recent enough to still show it clear. */
export async function activeReveal(actor: Principal, idParam: string, eventId: string | undefined): Promise<boolean> {
  if (!eventId || !/^\d{1,19}$/.test(eventId) || isSystem(actor) || !canReveal(actor)) return false;
  const id = parseDeadLetterId(idParam);
  const rows = await pg()`
    SELECT 1 FROM audit_events
    WHERE id = ${eventId}::bigint AND action = 'payload.reveal' AND target_type = 'deadletter' AND target_id = ${id.toString()}
      AND actor_id = ${actor.userId}::uuid AND at > now() - make_interval(secs => ${REVEAL_TTL_SECONDS})`;
  return rows.length > 0;
}

/**
 * The exact bytes of a masked payload (the original or an edited version) are a reveal: the
 * permission, and a recent reveal of this dead letter by the caller (POSTed, audited). A download
 * is a GET, which a cross-site link can send, so it never writes the reveal itself.
 */
export async function requireRevealForDownload(actor: Principal, idParam: string, revealId: string | undefined): Promise<void> {
  if (!canReveal(actor)) throw forbidden('This payload holds sensitive values: its exact bytes need the payload.reveal permission');
  if (!(await activeReveal(actor, idParam, revealId))) {
    throw new AppError(
      'unprocessable',
      `This payload holds sensitive values: POST /api/v1/dead-letters/${idParam}/reveal with { "reason": … } (recorded on the audit trail), then download with ?reveal= and its revealId`,
      { field: 'reveal' },
    );
  }
}
