// Sign-in, sign-out and failed sign-in, each with its audit event.
import { db } from '@/lib/db';
import { append } from '@/lib/audit';

export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;

export async function openSession(user: { id: string; email: string; role: string }, method: string, userAgent?: string) {
  return db().$transaction(async (tx) => {
    const s = await tx.userSession.create({
      data: { userId: user.id, expiresAt: new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000), userAgent },
      select: { id: true },
    });
    await append(tx, {
      actor: { userId: user.id, email: user.email, role: user.role },
      action: 'auth.sign_in',
      targetType: 'session',
      targetId: s.id,
      after: { method },
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
      targetType: 'session',
      targetId: sessionId,
    });
  });
}

export async function recordFailedSignIn(email: string, why: string): Promise<void> {
  await db().$transaction((tx) =>
    append(tx, { actor: { userId: null, email, role: 'anonymous' }, action: 'auth.sign_in_failed', result: why }),
  );
}
