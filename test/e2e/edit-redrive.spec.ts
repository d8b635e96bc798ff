// Edit and redrive, bulk transform, redrive to another source, on the demo: a support
// engineer removes the field handler v1 rejects from a rejected order, a lead approves, the demo
// consumer acknowledges the edited copy, and the audit trail shows both hashes and the diff; a bulk
// transform over the orders cluster previews samples and the count, then redrives; a redrive into
// another source is refused until that source's allow-list names the origin.
import { expect, test, type APIRequestContext, type Browser } from '@playwright/test';
import { as, pageAs, redriveTaskOpened, triage } from './helpers';

test.describe.configure({ mode: 'serial' });

interface Listed {
  id: string;
  messageId: string;
  clusterId: string | null;
}

async function openOrders(request: APIRequestContext): Promise<Listed[]> {
  const r = await request.get('/api/v1/dead-letters?source=orders&status=open&limit=200');
  expect(r.status()).toBe(200);
  return ((await r.json()) as { deadLetters: Listed[] }).deadLetters;
}

async function approve(browser: Browser, taskUrl: string) {
  const lead = await pageAs(browser, 'lead@triage.local');
  await lead.page.goto(taskUrl);
  await expect(lead.page.getByTestId('redrive-status')).toHaveText('pending approval');
  await lead.page.getByRole('button', { name: 'Approve' }).click();
  await expect(lead.page.getByTestId('redrive-status')).not.toHaveText('pending approval');
  await lead.close();
}

let poison: string[] = [];

test.describe('support engineer', () => {
  test.use(as('support@triage.local'));

  test('edits a rejected order, a lead approves, the demo consumer acknowledges the copy; the trail shows both hashes and the diff', async ({
    page,
    request,
    browser,
  }) => {
    triage('demo', 'deploy', 'v1');
    const batch = triage('demo', 'produce', '--orders', '30', '--payments', '0', '--notifications', '0') as { orders: { failing: string[] } };
    poison = batch.orders.failing;
    expect(poison.length).toBeGreaterThanOrEqual(2);
    await expect
      .poll(async () => (await openOrders(request)).filter((d) => poison.includes(d.messageId)).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(2);
    const parked = (await openOrders(request)).filter((d) => poison.includes(d.messageId));
    const target = parked[0]!;
    const original = (await (await request.get(`/api/v1/dead-letters/${target.id}`)).json()) as { sha256: string };

    await page.goto(`/dead-letters/${target.id}`);
    await page.getByTestId('edit-link').click();
    await expect(page).toHaveURL(new RegExp(`/dead-letters/${target.id}/edit`));
    const editor = page.getByRole('textbox', { name: 'Payload', exact: true });
    // JSON is validated as it is typed.
    await editor.fill('{"order": ');
    await expect(page.getByTestId('payload-invalid')).toContainText('Not valid JSON');
    await expect(page.getByRole('button', { name: 'Redrive the edited copy' })).toBeDisabled();
    const order = JSON.parse(Buffer.from(await (await request.get(`/api/v1/dead-letters/${target.id}/payload`)).body()).toString()) as Record<string, unknown>;
    expect(order).toHaveProperty('gift');
    delete order.gift;
    await editor.fill(JSON.stringify(order, null, 2));
    await expect(page.getByTestId('edit-diff')).toContainText('remove $.gift');
    await page.getByLabel('Reason').fill('v1 rejects "gift": removed it');
    await page.getByRole('button', { name: 'Redrive the edited copy' }).click();
    const taskUrl = `/redrives/${await redriveTaskOpened(page)}`;
    await expect(page.getByTestId('redrive-status')).toHaveText('pending approval');
    await expect(page.getByTestId('redrive-edit')).toContainText('edited copy');
    // Four eyes: the support engineer is offered no approval of their own edit.
    await expect(page.getByRole('button', { name: 'Approve' })).toHaveCount(0);

    await approve(browser, taskUrl);
    await page.reload();
    await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 60_000 });
    await expect(page.getByTestId('count-acknowledged')).toHaveText('1');
    const after = (await (await request.get(`/api/v1/dead-letters/${target.id}`)).json()) as { status: string; sha256: string };
    expect(after).toMatchObject({ status: 'redriven', sha256: original.sha256 });
    // The original bytes are still there, gift and all.
    expect(Buffer.from(await (await request.get(`/api/v1/dead-letters/${target.id}/payload`)).body()).toString()).toContain('gift');

    const auditor = await pageAs(browser, 'auditor@triage.local');
    await auditor.page.goto('/audit?action=deadletter.edit');
    const row = auditor.page.getByTestId('audit-row').first();
    await row.getByRole('link').first().click();
    await expect(auditor.page.getByTestId('audit-before')).toContainText(original.sha256);
    const versions = (await (await request.get(`/api/v1/dead-letters/${target.id}/versions`)).json()) as { versions: { sha256: string }[] };
    await expect(auditor.page.getByTestId('audit-after')).toContainText(versions.versions[0]!.sha256);
    await expect(auditor.page.getByTestId('audit-after')).toContainText('$.gift');
    await auditor.close();
  });

  test('a bulk transform over the orders cluster previews samples and the count, then redrives the transformed copies', async ({ page, request, browser }) => {
    const open = await openOrders(request);
    const cluster = open.find((d) => poison.includes(d.messageId))!.clusterId!;
    await page.goto(`/clusters/${cluster}`);
    await page.getByTestId('transform-link').click();
    await expect(page).toHaveURL(/\/redrives\/transform\?cluster=/);
    await page.getByRole('textbox', { name: /^Transform steps/ }).fill(
      JSON.stringify([
        { op: 'remove', path: '$.gift' },
        { op: 'header', name: 'x-transformed', value: 'gift-removed' },
      ]),
    );
    await page.getByRole('button', { name: 'Preview' }).click();
    await expect(page.getByTestId('transform-applies')).toHaveText(/^[1-9]\d*$/);
    await expect(page.getByTestId('transform-sample').first()).toContainText('"gift"');
    await page.getByLabel('Rate (messages/second)').fill('200');
    await page.getByLabel('Reason').fill('schema change: gift removed');
    await page.getByRole('button', { name: 'Ask for approval' }).click();
    const taskUrl = `/redrives/${await redriveTaskOpened(page)}`;
    await expect(page.getByTestId('redrive-edit')).toContainText('transformed copies');
    await approve(browser, taskUrl);
    await page.reload();
    await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 90_000 });
    const total = await page.getByTestId('count-total').textContent();
    await expect(page.getByTestId('count-acknowledged')).toHaveText(total!);
    await expect.poll(async () => (await openOrders(request)).filter((d) => poison.includes(d.messageId)).length, { timeout: 15_000 }).toBe(0);
  });

  test('a redrive to another source is refused without its allow-list entry and works with it', async ({ page, request, browser }) => {
    const name = `orders-replay-${Date.now().toString(36)}`;
    triage('source', 'create', '--name', name, '--team', 'commerce');
    triage('demo', 'produce', '--orders', '20', '--payments', '0', '--notifications', '0');
    await expect.poll(async () => (await openOrders(request)).length, { timeout: 30_000 }).toBeGreaterThan(0);
    const [one] = await openOrders(request);

    const startInto = async () => {
      await page.goto(`/redrives/new?ids=${one!.id}`);
      const form = page.getByTestId('start-redrive');
      await expect(form.getByTestId('preview-count')).toHaveText('1');
      await form.getByLabel('Destination').selectOption(name);
      await form.getByLabel('Reason').fill('replay into the new queue');
      await form.getByLabel(/^Canary/).setChecked(false);
      await form.getByRole('button', { name: 'Start redrive' }).click();
    };
    await startInto();
    await expect(page.getByTestId('start-redrive').getByRole('alert')).toContainText('allow-list');

    const lead = await pageAs(browser, 'lead@triage.local');
    await lead.page.goto(`/sources/${name}`);
    await lead.page.getByLabel(/^Accepts redrives from/).fill('orders');
    await lead.page.getByTestId('policy-form').getByRole('button').click();
    await expect(lead.page.getByTestId('policy-form')).toContainText('Policy saved');
    await lead.close();

    await startInto();
    await redriveTaskOpened(page);
    await expect(page.getByTestId('redrive-route')).toContainText(`→ ${name}`);
    await expect(page.getByTestId('redrive-destination')).toContainText(`orders → ${name}`);
    await expect(page.getByTestId('count-sent')).toHaveText('1', { timeout: 30_000 });
    // Nothing consumes the new queue: cancel, so orders has no active task left (it counts the origin).
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('redrive-status')).toHaveText('cancelled');
  });
});
