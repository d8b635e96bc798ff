// A demo user as the lib/ functions take their caller, for specs that seed through lib/ directly.
import type { Actor } from '@/lib/auth';
import { db } from '@/lib/db';

export async function principal(email: string): Promise<Actor> {
  const u = await db().user.findUniqueOrThrow({ where: { email } });
  return { userId: u.id, email: u.email, role: u.role, teamId: u.teamId, via: 'token' };
}
