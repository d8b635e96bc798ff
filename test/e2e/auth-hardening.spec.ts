// No known default secret, and sessions that cannot be forged, as an attacker or an operator
// meets it over HTTP against the served app: session ids on the audit trail, sessions and tokens that
// outlive a password change or a re-enable, the sign-in limiter under parallel attempts and floods,
// and what /api/health tells a stranger.
import { expect, test, type APIRequestContext } from '@playwright/test';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser, updateUser } from '@/lib/admin/users';
import { closeDb, db } from '@/lib/db';
import { env } from '@/lib/env';
import { ACTING, loadFixtures, unique, type Fixtures } from '../security/fixtures';
import { signInNewUser, signInThroughForm } from './helpers';

let fx: Fixtures;
test.beforeAll(async () => {
  fx = await loadFixtures();
});
test.afterAll(closeDb);

/** One password attempt through Auth.js's own endpoint: 'ok', 'refused' (wrong) or 'rate_limited'. */
async function attempt(request: APIRequestContext, email: string, password: string): Promise<'ok' | 'refused' | 'rate_limited'> {
  const { csrfToken } = (await (await request.get('/api/auth/csrf')).json()) as { csrfToken: string };
  const res = await request.post('/api/auth/callback/credentials', { form: { email, password, csrfToken }, maxRedirects: 0 });
  const location = res.headers().location ?? '';
  if (/code=rate_limited/.test(location)) return 'rate_limited';
  if (/error=/.test(location)) return 'refused';
  return 'ok';
}

const failedSignIns = () => db().auditEvent.count({ where: { action: { startsWith: 'auth.sign_in_failed' } } });

test.describe('sessions cannot be built from the audit trail', () => {
  test('an auditor reading the trail finds no session id of a sign-in or a sign-out', async ({ browser, request }) => {
    const { email, context, page } = await signInNewUser(browser, 'session-id', 'admin');
    await expect(page).toHaveURL(/\/admin$/);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    await context.close();

    const user = await db().user.findUniqueOrThrow({ where: { email }, include: { sessions: true } });
    expect(user.sessions.length).toBeGreaterThan(0);
    const res = await request.get(`/api/v1/audit/export?format=ndjson&actor=${encodeURIComponent(email)}`, {
      headers: { authorization: `Bearer ${fx.users[ACTING.auditor]!.token}` },
    });
    expect(res.status()).toBe(200);
    const trail = await res.text();
    expect(trail).toContain('auth.sign_in');
    expect(trail).toContain('auth.sign_out');
    for (const s of user.sessions) expect(trail).not.toContain(s.id);
  });
});

test.describe('a password change or a re-enable ends what came before', () => {
  test('a password change revokes the sessions and the personal tokens', async ({ browser }) => {
    const { user, email, context, page } = await signInNewUser(browser, 'pwchange', 'admin');
    await expect(page).toHaveURL(/\/admin$/);
    const { token } = await createPersonalToken(SYSTEM, email);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await context.request.get('/api/v1/sources')).status()).toBe(200);
    expect((await context.request.get('/api/v1/sources', { headers: bearer })).status()).toBe(200);

    await updateUser(SYSTEM, user.id, { password: 'new-password-2' });
    expect((await context.request.get('/api/v1/sources')).status()).toBe(401);
    const anonymous = await browser.newContext();
    expect((await anonymous.request.get('/api/v1/sources', { headers: bearer })).status()).toBe(401);
    await anonymous.close();
    await context.close();

    const again = await signInThroughForm(browser, email, 'new-password-2');
    await expect(again.page).toHaveURL(/\/admin$/);
    await again.context.close();
  });

  test('a re-enabled user comes back with no session and no token from before', async ({ browser }) => {
    const { user, email, password, context, page } = await signInNewUser(browser, 'reenable', 'admin');
    await expect(page).toHaveURL(/\/admin$/);
    const { token } = await createPersonalToken(SYSTEM, email);
    const bearer = { authorization: `Bearer ${token}` };
    const anonymous = await browser.newContext();
    expect((await anonymous.request.get('/api/v1/sources', { headers: bearer })).status()).toBe(200);

    await updateUser(SYSTEM, user.id, { disabled: true });
    await updateUser(SYSTEM, user.id, { disabled: false });
    expect((await context.request.get('/api/v1/sources')).status()).toBe(401);
    expect((await anonymous.request.get('/api/v1/sources', { headers: bearer })).status()).toBe(401);
    await anonymous.close();
    await context.close();

    const again = await signInThroughForm(browser, email, password);
    await expect(again.page).toHaveURL(/\/admin$/);
    await again.context.close();
  });
});

test.describe('failed sign-ins', () => {
  test('parallel wrong passwords get no more tries past the limiter than the limit', async ({ playwright, baseURL }) => {
    const max = env().SIGN_IN_MAX_ATTEMPTS;
    const email = `${unique('parallel')}@triage.local`;
    await createUser(SYSTEM, { email, role: 'support', team: 'commerce', password: 'parallel-password' });
    // Each attempt from its own address: only the per-e-mail limit stands in the way.
    const contexts = await Promise.all(
      Array.from({ length: 4 * max }, (_, i) =>
        playwright.request.newContext({ baseURL, extraHTTPHeaders: { 'x-forwarded-for': `198.18.${i >> 8}.${i & 255}` } }),
      ),
    );
    const outcomes = await Promise.all(contexts.map((c) => attempt(c, email, 'wrong-password')));
    expect(outcomes.filter((o) => o === 'ok')).toEqual([]);
    expect(outcomes.filter((o) => o === 'refused').length).toBeLessThanOrEqual(max);
    expect(outcomes.filter((o) => o === 'rate_limited').length).toBeGreaterThanOrEqual(3 * max);
    // The right password is refused too while the e-mail is locked.
    expect(await attempt(contexts[0]!, email, 'parallel-password')).toBe('rate_limited');
    await Promise.all(contexts.map((c) => c.dispose()));
  });

  test('attempts past the limit add nothing to the audit trail', async ({ playwright, baseURL }) => {
    const max = env().SIGN_IN_MAX_ATTEMPTS;
    const email = `${unique('flood')}@triage.local`;
    await createUser(SYSTEM, { email, role: 'support', team: 'commerce', password: 'flood-password' });
    const c = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { 'x-forwarded-for': '198.19.1.1' } });
    for (let i = 0; i < max; i++) expect(await attempt(c, email, 'wrong-password')).toBe('refused');
    const before = await db().auditEvent.count({ where: { actorEmail: email } });
    for (let i = 0; i < 3 * max; i++) expect(await attempt(c, email, 'wrong-password')).toBe('rate_limited');
    // At most the one event that says the limit was reached.
    expect(await db().auditEvent.count({ where: { actorEmail: email } })).toBeLessThanOrEqual(before + 1);
    await c.dispose();
  });

  test('failed sign-ins of unknown e-mails are aggregated, not one audit event each', async ({ playwright, baseURL }) => {
    const emails = Array.from({ length: 30 }, () => `${unique('nobody')}@triage.local`);
    const before = await failedSignIns();
    for (const [i, email] of emails.entries()) {
      const c = await playwright.request.newContext({ baseURL, extraHTTPHeaders: { 'x-forwarded-for': `198.19.2.${i + 1}` } });
      expect(await attempt(c, email, 'wrong-password')).toBe('refused');
      await c.dispose();
    }
    expect(await db().auditEvent.count({ where: { actorEmail: { in: emails } } })).toBe(0);
    // One aggregate event per minute at most: the burst may straddle a minute's end.
    expect((await failedSignIns()) - before).toBeLessThanOrEqual(2);
  });
});

test.describe('/api/health', () => {
  test('tells a stranger ok or not ok and nothing else; an admin token sees each check', async ({ request }) => {
    const res = await request.get('/api/health');
    expect(res.status()).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const detailed = await request.get('/api/health', { headers: { authorization: `Bearer ${fx.users[ACTING.admin]!.token}` } });
    expect(detailed.status()).toBe(200);
    expect(await detailed.json()).toMatchObject({ ok: true, postgres: { ok: true }, redis: { ok: true } });
    // Support's token is no operator's: it sees what a stranger sees.
    const support = await request.get('/api/health', { headers: { authorization: `Bearer ${fx.users[ACTING.support]!.token}` } });
    expect(await support.json()).toEqual({ ok: true });
  });
});
