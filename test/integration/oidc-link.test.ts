// Single sign-on links an existing account by its e-mail only when the identity provider
// says it verified that e-mail; otherwise anyone who can register that address at the IdP becomes the user.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { oidcSignInAllowed } from '@/lib/auth/oidc';
import { createUser, updateUser } from '@/lib/admin/users';
import { closeDb, db } from '@/lib/db';
import { resetDatabase } from '../support/db';

describe('single sign-on links an account by e-mail', () => {
  beforeEach(async () => {
    await resetDatabase();
    await createUser(SYSTEM, { email: 'admin@test.local', role: 'admin' });
  });
  afterAll(closeDb);

  it('when the IdP verified the e-mail', async () => {
    expect(await oidcSignInAllowed({ email: 'Admin@Test.local', email_verified: true })).toBe(true);
  });

  it('never when the IdP did not verify it, or does not say', async () => {
    const before = await db().auditEvent.count({ where: { action: 'auth.sign_in_failed' } });
    expect(await oidcSignInAllowed({ email: 'admin@test.local', email_verified: false })).toBe(false);
    expect(await oidcSignInAllowed({ email: 'admin@test.local' })).toBe(false);
    expect(await oidcSignInAllowed({ email: 'admin@test.local', email_verified: 'true' })).toBe(false);
    const refused = await db().auditEvent.findMany({ where: { action: 'auth.sign_in_failed' }, orderBy: { id: 'asc' }, skip: before });
    expect(refused.map((e) => e.result)).toEqual(Array(3).fill('e-mail not verified by the identity provider'));
  });

  it('never for an unknown or disabled user', async () => {
    expect(await oidcSignInAllowed({ email: 'nobody@test.local', email_verified: true })).toBe(false);
    const u = await db().user.findUniqueOrThrow({ where: { email: 'admin@test.local' } });
    await updateUser(SYSTEM, u.id, { disabled: true });
    expect(await oidcSignInAllowed({ email: 'admin@test.local', email_verified: true })).toBe(false);
  });
});
