// The lead's SLA board and source policy, the auditor's view of the change, the support engineer
// refused on the server; Prometheus metrics with a personal token; a team webhook's test send
// delivered by the maintenance worker to a local receiver.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { as, expectAuditTrail } from './helpers';

test.describe.configure({ mode: 'serial' });

test.describe('lead', () => {
  test.use(as('lead@triage.local'));

  test('sees the SLA board with the team’s sources and changes a deadline in the UI', async ({ page }) => {
    await page.goto('/sla');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('SLA board');
    const board = page.getByTestId('sla-board');
    // Other specs add sources of their own to the team; the finance team's never show here.
    await expect(board.locator('tr[data-source="payments"]')).toHaveCount(0);
    await expect(board.locator('tr[data-source="partner-webhooks"]')).toHaveCount(0);
    await expect(board.locator('tr[data-source="orders"]')).toBeVisible();
    await expect(board.locator('tr[data-source="notifications"]')).toBeVisible();
    await expect(board).not.toContainText('payments');
    // Specs before this one may have changed the policy; what matters is that the change below shows.
    await expect(board.locator('tr[data-source="orders"] td[data-col="deadline"]')).toHaveText(/^\d+ d( \d+ h)?$/);
    await expect(board.locator('tr[data-source="orders"] td[data-col="open"] a')).toHaveAttribute('href', '/dead-letters?source=orders&status=open');

    await board.getByRole('link', { name: 'orders', exact: true }).click();
    await expect(page).toHaveURL(/\/sources\/orders$/);
    const form = page.getByTestId('policy-form');
    await form.getByLabel('Age deadline (hours)').fill('72');
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(form.getByRole('status')).toHaveText('Policy saved');

    // A deadline as long as the retention (the demo's sources keep 40 days) is refused with the reason.
    const retentionDays = Number(await form.getByLabel('Retention (days)').inputValue());
    expect(retentionDays).toBeGreaterThan(3);
    await form.getByLabel('Age deadline (hours)').fill(String(retentionDays * 24));
    await form.getByRole('button', { name: 'Save policy' }).click();
    await expect(form.getByRole('alert')).toContainText('must be shorter than the retention');

    await page.goto('/sla');
    await expect(page.locator('tr[data-source="orders"] td[data-col="deadline"]')).toHaveText('3 d');
  });

  test('adds a team webhook whose test send the maintenance worker delivers, signed', async ({ page, browser }) => {
    // The team's alarm transitions come here too once the webhook exists (other specs leave
    // connectors that go into alarm while this one runs): the test send is the one with its event.
    const received: { event?: string; signature?: string; body: string }[] = [];
    const tests = () => received.filter((r) => r.event === 'webhook.test');
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ event: req.headers['x-triage-event'] as string | undefined, signature: req.headers['x-triage-signature'] as string | undefined, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack`;
    try {
      await page.goto('/sla');
      await page.getByRole('link', { name: 'Team webhooks' }).click();
      const create = page.getByTestId('create-webhook');
      await create.getByLabel('URL').fill(url);
      await create.getByRole('button', { name: 'Add webhook' }).click();
      await expect(create.getByTestId('webhook-secret')).toHaveText(/^whsec_/);
      const row = page.locator(`tr[data-url="${url}"]`);
      await row.getByRole('button', { name: 'Send test' }).click();
      await expect(row.getByRole('status')).toContainText('Test message queued');
      await expect.poll(() => tests().length, { timeout: 30_000 }).toBe(1);
      expect(tests()[0]!.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(JSON.parse(tests()[0]!.body)).toMatchObject({ text: expect.stringContaining('Test message from Triage') });
      for (const r of received) expect(r.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
      // The team's log holds the newest 50 deliveries of every webhook it has; this one's log is a
      // click away. The receiver has the body before the worker records the answer: reload until the
      // log says so (a short inner wait, or one early reload would use up the budget on a stale page).
      await row.getByRole('link', { name: 'Delivery log' }).click();
      await expect(page.getByTestId('deliveries-of')).toContainText(url);
      const logged = page.getByTestId('deliveries-table').locator('tbody tr').filter({ hasText: 'webhook.test' });
      await expect(async () => {
        await page.reload();
        await expect(logged).toHaveCount(1, { timeout: 2_000 });
        await expect(logged.locator('td').nth(3)).toHaveText('delivered', { timeout: 2_000 });
      }).toPass({ timeout: 30_000 });
      expect(tests()).toHaveLength(1);

      // Another team's lead: this webhook's log is a 404, as if it did not exist.
      const other = await browser.newContext(as('finance-lead@triage.local'));
      const res = await (await other.newPage()).goto(page.url());
      expect(res!.status()).toBe(404);
      await other.close();
    } finally {
      server.close();
    }
  });
});

test('the auditor sees the deadline change in the trail', async ({ browser }) => {
  await expectAuditTrail(browser, '/audit?action=source.policy.update', ['source.policy.update', 'lead@triage.local']);
});

test.describe('support', () => {
  test.use(as('support@triage.local'));

  test('sees the policy but cannot change it: the server refuses', async ({ page, request, baseURL }) => {
    await page.goto('/sources/orders');
    await expect(page.getByTestId('policy-table')).toContainText('3 d');
    await expect(page.getByTestId('policy-form')).toHaveCount(0);
    const r = await request.patch('/api/v1/sources/orders/policy', { headers: { origin: baseURL! }, data: { ageDeadlineSeconds: 3600 } });
    expect(r.status()).toBe(403);
    const policy = await request.get('/api/v1/sources/orders/policy');
    expect(((await policy.json()) as { source: { ageDeadlineSeconds: number } }).source.ageDeadlineSeconds).toBe(3 * 86400);
    await page.goto('/settings/webhooks');
    await expect(page).toHaveURL(/\/forbidden$/);
  });
});

test.describe('metrics', () => {
  test.use(as('admin@triage.local'));

  test('a scraper with a personal token sees its user’s sources only', async ({ page, playwright, baseURL }) => {
    await page.goto('/admin');
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Create personal token' }) });
    await form.getByLabel('User').selectOption('finance-lead@triage.local');
    await form.getByRole('button', { name: 'Create personal token' }).click();
    const token = (await form.getByTestId('new-token').textContent())!;
    const scraper = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    expect((await scraper.get('/api/metrics')).status()).toBe(401);
    // The alarm states appear once the maintenance worker has evaluated (every 15 s).
    await expect(async () => {
      const r = await scraper.get('/api/metrics', { headers: { authorization: `Bearer ${token}` } });
      expect(r.status()).toBe(200);
      const text = await r.text();
      expect(text).toContain('triage_dead_letters_open{source="payments"}');
      expect(text).toContain('triage_alarm_state{source="payments",kind="depth"} 0');
      expect(text).not.toContain('source="orders"');
    }).toPass({ timeout: 30_000 });
    await scraper.dispose();
  });
});
