// Issue 15, "No known default secret; sessions that cannot be forged", as an attacker or an operator
// meets it over HTTP against the served app: session ids on the audit trail, sessions and tokens that
// outlive a password change or a re-enable, the sign-in limiter under parallel attempts and floods,
// and what /api/health tells a stranger.
import { expect, test, type APIRequestContext, type Browser } from '@playwright/test';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser, updateUser } from '@/lib/admin/users';
import { closeDb, db } from '@/lib/db';
import { env } from '@/lib/env';
import { ACTING, loadFixtures, unique, type Fixtures } from '../security/fixtures';

let fx: Fixtures;
test.beforeAll(async () => {
  fx = await loadFixtures();
});
test.afterAll(closeDb);

async function signIn(browser: Browser, email: string, password: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { context, page };
}

/** One password attempt through Auth.js's own endpoint: 'ok', 'refused' (wrong) or 'rate_limited'. */
async function attempt(request: APIRequestContext, email: string, password: string): Promise<'ok' | 'refused' | 'rate_limited'> {
  const { csrfToken } = (await (await request.get('/api/auth/csrf')).json()) as { csrfToken: string };
  const res = await request.post('/api/auth/callback/credentials', { form: { email, password, csrfToken }, maxRedirects: 0 });
  const location = res.headers()['location'] ?? '';
  if (/code=rate_limited/.test(location)) return 'rate_limited';
  if (/error=/.test(location)) return 'refused';
  return 'ok';
}

const failedSignIns = () => db().auditEvent.count({ where: { action: { startsWith: 'auth.sign_in_failed' } } });

test.describe('sessions cannot be built from the audit trail', () => {
  test('an auditor reading the trail finds no session id of a sign-in or a sign-out', async ({ browser, request }) => {
    const email = `${unique('sid')}@triage.local`;
    await createUser(SYSTEM, { email, role: 'admin', password: 'session-id-password' });
    const { context, page } = await signIn(browser, email, 'session-id-password');
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
    const email = `${unique('pwchange')}@triage.local`;
    const user = await createUser(SYSTEM, { email, role: 'admin', password: 'old-password-1' });
    const { context, page } = await signIn(browser, email, 'old-password-1');
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

    const again = await signIn(browser, email, 'new-password-2');
    await expect(again.page).toHaveURL(/\/admin$/);
    await again.context.close();
  });

  test('a re-enabled user comes back with no session and no token from before', async ({ browser }) => {
    const email = `${unique('reenable')}@triage.local`;
    const user = await createUser(SYSTEM, { email, role: 'admin', password: 'reenable-password' });
    const { context, page } = await signIn(browser, email, 'reenable-password');
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

    const again = await signIn(browser, email, 'reenable-password');
    await expect(again.page).toHaveURL(/\/admin$/);
    await again.context.close();
  });
});

