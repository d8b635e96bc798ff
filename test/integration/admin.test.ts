import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM, type Actor } from '@/lib/auth';
import { actorFromPersonalToken, actorFromSession } from '@/lib/auth/actor';
import { verifyPassword } from '@/lib/auth/password';
import { createTeam } from '@/lib/admin/teams';
import { createUser, updateUser } from '@/lib/admin/users';
import { createIngestToken, createPersonalToken, revokeToken } from '@/lib/admin/tokens';
import { openSession, closeSession } from '@/lib/auth/sessions';
import { createSource } from '@/lib/sources/create-source';
import { listSources } from '@/lib/sources/list-sources';
import { closeDb, db } from '@/lib/db';
import { AppError } from '@/lib/errors';
import { verifyChain } from '@/lib/audit';
import { resetDatabase } from '../support/db';

async function world() {
  await createTeam(SYSTEM, { name: 'commerce' });
  await createTeam(SYSTEM, { name: 'finance' });
  const lead = await createUser(SYSTEM, { email: 'Lead@Example.com', role: 'lead', team: 'commerce', password: 'correct horse' });
  const admin = await createUser(SYSTEM, { email: 'admin@example.com', role: 'admin', password: 'correct horse' });
  await createSource(SYSTEM, { name: 'orders', team: 'commerce' });
  await createSource(SYSTEM, { name: 'payments', team: 'finance' });
  return { lead, admin };
}

const asActor = (u: { id: string; email: string; role: string; teamId: string | null }): Actor => ({
  userId: u.id,
  email: u.email,
  role: u.role as Actor['role'],
  teamId: u.teamId,
  via: 'session',
});

describe('admin and identity', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('creates users with a scrypt hash and one audit event each', async () => {
    const { lead } = await world();
    expect(lead.email).toBe('lead@example.com');
    expect(lead.passwordHash).toMatch(/^scrypt\$/);
    expect(await verifyPassword('correct horse', lead.passwordHash)).toBe(true);
    expect(await verifyPassword('wrong horse', lead.passwordHash)).toBe(false);
    const events = await db().auditEvent.findMany({ where: { action: 'user.create' } });
    expect(events.map((e) => e.actorRole)).toEqual(['system', 'system']);
    expect((await verifyChain()).ok).toBe(true);
  });

  it('refuses bad input with a reason and writes nothing', async () => {
    await createTeam(SYSTEM, { name: 'commerce' });
    const before = await db().auditEvent.count();
    await expect(createUser(SYSTEM, { email: 'not-an-email', role: 'support', team: 'commerce' })).rejects.toThrow();
    await expect(createUser(SYSTEM, { email: 'x@example.com', role: 'support' })).rejects.toMatchObject({ code: 'unprocessable' });
    await expect(createUser(SYSTEM, { email: 'x@example.com', role: 'support', team: 'nope' })).rejects.toMatchObject({ code: 'unprocessable' });
    await expect(createTeam(SYSTEM, { name: 'commerce' })).rejects.toMatchObject({ code: 'conflict' });
    expect(await db().user.count()).toBe(0);
    expect(await db().auditEvent.count()).toBe(before);
  });

  it('lets only admins manage, checked inside the lib function', async () => {
    const { lead } = await world();
    await expect(createTeam(asActor(lead), { name: 'rogue' })).rejects.toMatchObject({ status: 403 });
    await expect(createSource(asActor(lead), { name: 'rogue', team: 'commerce' })).rejects.toBeInstanceOf(AppError);
    expect(await db().team.count({ where: { name: 'rogue' } })).toBe(0);
  });

  it('scopes sources to the actor team', async () => {
    const { lead, admin } = await world();
    expect((await listSources(asActor(lead))).map((s) => s.name)).toEqual(['orders']);
    expect((await listSources(asActor(admin))).map((s) => s.name)).toEqual(['orders', 'payments']);
  });

  it('applies a demotion and a disable on the next request', async () => {
    const { lead } = await world();
    const sid = await openSession(lead, 'credentials');
    expect((await actorFromSession(lead.id, sid))?.role).toBe('lead');
    await updateUser(SYSTEM, lead.id, { role: 'support' });
    expect((await actorFromSession(lead.id, sid))?.role).toBe('support');
    await updateUser(SYSTEM, lead.id, { disabled: true });
    expect(await actorFromSession(lead.id, sid)).toBeUndefined();
  });

  it('refuses a session after sign-out', async () => {
    const { lead } = await world();
    const sid = await openSession(lead, 'credentials');
    await closeSession(sid);
    expect(await actorFromSession(lead.id, sid)).toBeUndefined();
    const actions = (await db().auditEvent.findMany({ orderBy: { id: 'asc' } })).map((e) => e.action);
    expect(actions.slice(-2)).toEqual(['auth.sign_in', 'auth.sign_out']);
  });

  it('issues tokens shown once, stored hashed, revocable', async () => {
    const { lead } = await world();
    const t = await createPersonalToken(SYSTEM, lead.email);
    expect(t.token).toMatch(/^tri_p_/);
    expect(await db().apiToken.count({ where: { tokenHash: t.token } })).toBe(0);
    expect((await actorFromPersonalToken(t.token))?.email).toBe(lead.email);
    await revokeToken(SYSTEM, t.id);
    expect(await actorFromPersonalToken(t.token)).toBeUndefined();
    const ingest = await createIngestToken(SYSTEM, 'orders');
    expect(ingest.token).toMatch(/^tri_i_/);
    expect(await actorFromPersonalToken(ingest.token)).toBeUndefined();
  });
});
