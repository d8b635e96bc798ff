import { expect, test } from '@playwright/test';
import { DEMO_PASSWORD } from '../../prisma/seed';
import { as, expectAuditTrail } from './helpers';

const HOMES = [
  ['support@triage.local', '/inbox', 'Inbox'],
  ['lead@triage.local', '/sla', 'SLA board'],
  ['auditor@triage.local', '/audit', 'Audit trail'],
  ['admin@triage.local', '/admin', 'Admin'],
] as const;

test.describe('sign-in and role homes', () => {
  for (const [email, home, heading] of HOMES) {
    test(`${email} signs in and lands on ${home}`, async ({ browser }) => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto('/');
      await expect(page).toHaveURL(/\/sign-in$/);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(DEMO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page).toHaveURL(new RegExp(`${home}$`));
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(heading);
      await context.close();
    });
  }

  test('a wrong password is refused with a message', async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill('support@triage.local');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('form').getByRole('alert')).toHaveText('Wrong e-mail or password.');
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test('signing out ends the session, and the old cookie no longer works', async ({ browser, baseURL }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill('auditor@triage.local');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/audit$/);
    const cookies = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    const replay = await browser.newContext();
    await replay.addCookies(cookies);
    const r = await replay.request.get(`${baseURL}/api/v1/audit/verify`);
    expect(r.status()).toBe(401);
    await replay.close();
    await context.close();
  });
});

test.describe('refused on the server', () => {
  test.use(as('support@triage.local'));

  test('a support engineer is turned away from admin and audit pages', async ({ page }) => {
    await page.goto('/admin');
    await expect(page).toHaveURL(/\/forbidden$/);
    await page.goto('/audit');
    await expect(page).toHaveURL(/\/forbidden$/);
  });

  test('a direct request without the permission gets 403', async ({ request, baseURL }) => {
    const r = await request.post('/api/v1/users', {
      headers: { origin: baseURL! },
      data: { email: 'sneaky@triage.local', role: 'admin', password: 'sneaky-password' },
    });
    expect(r.status()).toBe(403);
    expect((await request.get('/api/v1/audit/verify')).status()).toBe(403);
    // The header that bypassed middleware-only checks (CVE-2025-29927) changes nothing.
    const bypass = await request.post('/api/v1/users', {
      headers: { origin: baseURL!, 'x-middleware-subrequest': 'middleware:middleware:middleware:middleware:middleware' },
      data: { email: 'sneaky@triage.local', role: 'admin', password: 'sneaky-password' },
    });
    expect(bypass.status()).toBe(403);
  });
});

test.describe('admin', () => {
  test.use(as('admin@triage.local'));

  test('a cross-site POST carrying the session cookie is refused', async ({ request }) => {
    for (const origin of ['http://evil.example', 'null']) {
      const r = await request.post('/api/v1/users', {
        headers: { origin, 'content-type': 'text/plain' },
        data: JSON.stringify({ email: 'csrf@triage.local', role: 'admin', password: 'csrf-password' }),
      });
      expect(r.status(), `Origin ${origin}`).toBe(403);
    }
    const listed = await request.get('/api/v1/users');
    expect(((await listed.json()) as { users: { email: string }[] }).users.map((u) => u.email)).not.toContain('csrf@triage.local');
  });

  test('creates a user in the page, who can then sign in', async ({ page, browser }) => {
    await page.goto('/admin');
    const form = page.getByTestId('create-user');
    await form.getByLabel('E-mail').fill('new-support@triage.local');
    await form.getByLabel('Role').selectOption('support');
    await form.getByLabel('Team').selectOption('commerce');
    await form.getByLabel('Password').fill('a-fresh-password');
    await form.getByRole('button', { name: 'Create user' }).click();
    await expect(form.getByRole('status')).toHaveText('User new-support@triage.local created');
    await expect(page.getByTestId('users-table')).toContainText('new-support@triage.local');

    const other = await browser.newContext({ storageState: undefined });
    const p2 = await other.newPage();
    await p2.goto('/sign-in');
    await p2.getByLabel('E-mail').fill('new-support@triage.local');
    await p2.getByLabel('Password').fill('a-fresh-password');
    await p2.getByRole('button', { name: 'Sign in' }).click();
    await expect(p2).toHaveURL(/\/inbox$/);
    await other.close();
  });
});

test('the auditor sees admin changes in the trail', async ({ browser }) => {
  await expectAuditTrail(browser, '/audit', ['user.create', 'auth.sign_in']);
});
