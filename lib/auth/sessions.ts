// Sign-in, sign-out and failed sign-in, each with its audit event.
import { createHash } from 'node:crypto';
import { db } from '@/lib/db';
import { append } from '@/lib/audit';
import { countUnknownEmailFailure } from './rate-limit';

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

/**
 * How the trail names a session: a digest, never the id. The id and AUTH_SECRET make a session
 * cookie, and auditors read the trail; the digest still pairs a sign-in with its sign-out.
 */
export function sessionRef(sessionId: string): string {
  return createHash('sha256').update(`triage-session:${sessionId}`).digest('hex').slice(0, 16);
}

export async function openSession(user: { id: string; email: string; role: string }, method: string, userAgent?: string) {
  return db().$transaction(async (tx) => {
    const s = await tx.userSession.create({
      data: { userId: user.id, expiresAt: new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000), userAgent },
      select: { id: true },
    });
    await append(tx, {
      actor: { userId: user.id, email: user.email, role: user.role },
      action: 'auth.sign_in',
      targetType: 'user',
      targetId: user.id,
      after: { method, session: sessionRef(s.id) },
    });
    return s.id;
  });
}

export async function closeSession(sessionId: string): Promise<void> {
  await db().$transaction(async (tx) => {
    const s = await tx.userSession.findUnique({ where: { id: sessionId }, include: { user: true } });
    if (!s || s.revokedAt) return;
    await tx.userSession.update({ where: { id: sessionId }, data: { revokedAt: new Date() } });
    await append(tx, {
      actor: { userId: s.userId, email: s.user.email, role: s.user.role },
      action: 'auth.sign_out',
      targetType: 'user',
      targetId: s.userId,
      after: { session: sessionRef(sessionId) },
    });
  });
}

export async function recordFailedSignIn(email: string, why: string): Promise<void> {
  await db().$transaction((tx) => append(tx, { actor: { userId: null, email, role: 'anonymous' }, action: 'auth.sign_in_failed', result: why }));
}

/**
 * A failed sign-in of an e-mail no user has: one audit event per minute for all of them, naming none
 * (made-up addresses would otherwise grow the trail without bound), with the previous minute's total.
 */
export async function recordUnknownEmailFailure(): Promise<void> {
  const { first, minute, previousMinute } = await countUnknownEmailFailure();
  if (!first) return;
  await db().$transaction((tx) =>
    append(tx, {
      actor: { userId: null, email: 'unknown e-mails', role: 'anonymous' },
      action: 'auth.sign_in_failed',
      result: 'no such user (aggregated: one event per minute)',
      after: { minute: minute.toISOString(), previousMinuteTotal: previousMinute },
    }),
  );
}
