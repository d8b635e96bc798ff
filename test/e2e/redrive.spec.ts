// The demo story (docs/design.md, seed 004): poison orders parked under handler v1; a redrive started
// before the fix comes back dead and the circuit breaker pauses it, reason on the page; handler v2
// "deployed"; the orders cluster redriven with a canary from the UI: all acknowledged, nothing open
// left, and the audit trail tells it. The consumer and redrive workers run beside the app.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { SERIES_COLORS } from '@/components/charts/chart-format';
import { as, expectAuditTrail, openDeadLetters, redriveTaskOpened, triage } from './helpers';

test.describe.configure({ mode: 'serial' });

const openOrders = (request: APIRequestContext) => openDeadLetters(request, 'orders');

/** Fill the start-redrive form on `path` (the redrive page, or a page embedding it) and start. */
async function startFromUi(page: Page, path: string, opts: { canary: boolean; rate: number; reason: string }): Promise<string> {
  await page.goto(path);
  const form = page.getByTestId('start-redrive');
  await expect(form.getByTestId('preview-count')).toHaveText(/^[1-9]\d*$/);
  await form.getByLabel('Rate (messages/second)').fill(String(opts.rate));
  await form.getByLabel(/^Canary/).setChecked(opts.canary);
  await form.getByLabel('Reason').fill(opts.reason);
  await form.getByRole('button', { name: 'Start redrive' }).click();
  return redriveTaskOpened(page);
}

test.describe('support engineer', () => {
  test.use(as('support@triage.local'));

  let poison = 0;
  let beforeFix = '';

  test('a redrive started before the fix trips the circuit breaker and pauses itself, reason shown', async ({ page, request }) => {
    triage('demo', 'deploy', 'v1');
    const batch = triage('demo', 'produce', '--orders', '40', '--payments', '0', '--notifications', '0') as { orders: { failing: string[] } };
    poison = batch.orders.failing.length;
    expect(poison).toBeGreaterThanOrEqual(5);
    await expect.poll(async () => (await openOrders(request)).count, { timeout: 30_000 }).toBeGreaterThanOrEqual(poison);
    const { clusterId } = await openOrders(request);

    beforeFix = await startFromUi(page, `/redrives/new?cluster=${clusterId}&source=orders`, { canary: false, rate: 20, reason: 'before the fix' });
    await expect(page.getByTestId('paused-reason')).toContainText('Circuit breaker', { timeout: 30_000 });
    await expect(page.getByTestId('redrive-status')).toHaveText('paused');
    await expect(page.getByTestId('redrive-verdict')).toHaveText('failing');
    await expect(page.getByTestId('redrive-audit')).toContainText('redrive.auto_pause');

    await page.getByTestId('redrive-commands').getByLabel('Reason (optional)').fill('fix the handler first');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByTestId('redrive-status')).toHaveText('cancelled');
    // Their new deaths are open dead letters again, in the same cluster.
    expect((await openOrders(request)).count).toBeGreaterThanOrEqual(poison);
  });

  test('after handler v2 is deployed, a canary redrive of the orders cluster brings every one back acknowledged', async ({ page, request }) => {
    triage('demo', 'deploy', 'v2');
    const { clusterId, count } = await openOrders(request);
    expect(count).toBeGreaterThanOrEqual(poison);
    // The cluster's redrives so far (the one before the fix, and any another spec ran over the demo's
    // orders cluster first): this one adds exactly one.
    await page.goto(`/redrives/${beforeFix}`);
    const sofar = Number(/over (\d+) redrive/.exec((await page.getByTestId('cluster-outcome').textContent()) ?? '')?.[1]);
    expect(sofar).toBeGreaterThanOrEqual(1);

    // From the cluster's own page, which embeds the start form.
    const id = await startFromUi(page, `/clusters/${clusterId}`, { canary: true, rate: 10, reason: 'handler v2 deployed' });
    await expect(page.getByTestId('cluster-outcome')).toContainText(`over ${sofar + 1} redrives`);
    await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 60_000 });
    const total = await page.getByTestId('count-total').textContent();
    await expect(page.getByTestId('count-acknowledged')).toHaveText(total!);
    await expect(page.getByTestId('count-deadAgain')).toHaveText('0');
    // Every one acknowledged by the consumer: none left to "no death seen" at the window's end.
    await expect(page.getByTestId('count-noDeathSeen')).toHaveText('0');
    await expect(page.getByTestId('outcome-window')).toContainText("Outcome window 10 min (the canary's 1 min)");
    await expect(page.getByTestId('redrive-verdict')).toHaveText('worked');
    await expect(page.getByTestId('redrive-progress')).toHaveAttribute('aria-valuenow', total!);
    // The chart: sent/s and acknowledged/s run together on a healthy redrive; both lines show, the
    // sent one drawn on top of the other, dashed, each named in the legend.
    const chart = page.locator('.recharts-wrapper').filter({ has: page.locator('.recharts-legend-wrapper', { hasText: 'sent/s' }) });
    await expect(chart.locator('.recharts-legend-wrapper')).toContainText('sent/s');
    await expect(chart.locator('.recharts-legend-wrapper')).toContainText('acknowledged/s');
    const sent = chart.locator(`path.recharts-line-curve[stroke="${SERIES_COLORS.accent}"]`);
    const acknowledged = chart.locator(`path.recharts-line-curve[stroke="${SERIES_COLORS.ok}"]`);
    await expect(sent).toHaveAttribute('d', /^M[^M]*[LC]/);
    await expect(acknowledged).toHaveAttribute('d', /^M[^M]*[LC]/);
    expect(await sent.getAttribute('stroke-dasharray')).toMatch(/\d/);
    expect(await acknowledged.getAttribute('stroke-dasharray')).toBeNull();
    const sentOnTop = await sent.evaluate(
      (s, a) => Boolean(a!.compareDocumentPosition(s) & Node.DOCUMENT_POSITION_FOLLOWING),
      await acknowledged.elementHandle(),
    );
    expect(sentOnTop).toBe(true);

    // The dead-letter queue of orders is empty.
    await expect.poll(async () => (await openOrders(request)).count, { timeout: 15_000 }).toBe(0);

    await page.goto('/redrives');
    await expect(page.locator(`tr[data-task="${id}"]`)).toContainText('worked');
    await expect(page.locator(`tr[data-task="${beforeFix}"]`)).toContainText('cancelled');
  });
});

test('the auditor reads the story on the audit trail', async ({ browser }) => {
  await expectAuditTrail(browser, '/audit?action=redrive.', ['redrive.start', 'redrive.auto_pause', 'redrive.cancel', 'redrive.finish']);
  await expectAuditTrail(browser, '/audit?action=demo.deploy', ['demo.deploy']);
});
