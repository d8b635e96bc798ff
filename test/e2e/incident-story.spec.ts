// The 3 a.m. story of the runbook (seed 004), played on the desktop and on the on-call phone. A
// payment gateway outage too slow to make a wave: the alarms say outage and never advise a redrive;
// the redrive page warns, and once the gateway is back the finance lead confirms it is healthy and
// redrives rate-limited: it works. Then poison orders: the canary dies before the fix, the task
// pauses (the source's redrive alarm says so), handler v2 is deployed, a resume works, and "did it
// work" judges what was sent after the resume. At each step nothing on the page scrolls sideways.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { expectFitsWidth, openDeadLetters, PHONE, redriveTaskOpened, stateFile, triage } from './helpers';

const SIZES = { desktop: { width: 1280, height: 800 }, phone: PHONE } as const;

// E2E_STORY_SHOTS=<folder>: a full-page screenshot of every step, for a person to look at (what a
// width check cannot see: overlapping text, a warning below the fold, a button off its card).
const SHOTS = process.env.E2E_STORY_SHOTS;
let shot = 0;
async function snap(page: Page, what: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  const width = page.viewportSize()?.width ?? 0;
  const name = `${width}px-${String(++shot).padStart(2, '0')}-${what.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}.png`;
  await page.screenshot({ path: join(SHOTS, name), fullPage: true });
}

/** The page at `path`, loaded, and fitting the window. */
async function visit(page: Page, path: string) {
  await page.goto(path);
  await expect(page.locator('h1').first()).toBeVisible();
  await expectFitsWidth(page);
  await snap(page, path);
}

/** Fill and submit the start form on the page shown; the task's page follows. */
async function start(page: Page, opts: { rate: number; canary: boolean; reason: string; confirmOutage?: boolean }): Promise<string> {
  const form = page.getByTestId('start-redrive');
  await expect(form.getByTestId('preview-count')).toHaveText(/^[1-9]\d*$/);
  await form.getByLabel('Rate (messages/second)').fill(String(opts.rate));
  await form.getByLabel(/^Canary/).setChecked(opts.canary);
  await form.getByLabel(/^Reason/).fill(opts.reason);
  if (opts.confirmOutage) await form.getByLabel(/confirmed the downstream is healthy/).check();
  await form.getByRole('button', { name: 'Start redrive' }).click();
  const id = await redriveTaskOpened(page);
  await expectFitsWidth(page);
  await snap(page, 'task started');
  return id;
}

for (const [size, viewport] of Object.entries(SIZES)) {
  test.describe(`the 3 a.m. story on the ${size}`, () => {
    test.describe.configure({ mode: 'serial' });
    test.use({ viewport });

    test('a slow gateway outage: outage, do not redrive; after recovery, a confirmed rate-limited redrive works', async ({ browser }) => {
      const context = await browser.newContext({ viewport, storageState: stateFile('finance-lead@triage.local') });
      const page = await context.newPage();
      // Fewer than a wave (50 in the rate window): the errors, not the volume, say outage.
      const batch = triage('demo', 'produce', '--orders', '0', '--payments', '6', '--notifications', '0', '--outage', '25') as {
        payments: { failing: string[] };
        paymentsDownUntil: string;
      };
      const outageEnds = Date.parse(batch.paymentsDownUntil) + 1_000;
      const parked = batch.payments.failing.length;
      expect(parked).toBeGreaterThanOrEqual(1);
      await expect.poll(async () => (await openDeadLetters(page.request, 'payments')).count, { timeout: 30_000 }).toBeGreaterThanOrEqual(parked);
      const { clusterId } = await openDeadLetters(page.request, 'payments');

      // The alarm (evaluated every 15 s) calls it an outage, and its advice never says to redrive.
      await expect(async () => {
        await visit(page, '/alarms?source=payments');
        const depth = page.locator('[data-testid="alarm-states"] tr[data-source="payments"][data-kind="depth"]');
        await expect(depth).toContainText('outage: check the downstream first', { timeout: 1_000 });
        await expect(depth).not.toContainText(/redrive/i, { timeout: 1_000 });
      }).toPass({ timeout: 45_000 });

      // The cluster's redrive page warns while the transient errors are recent.
      await visit(page, `/redrives/new?cluster=${clusterId}&source=payments`);
      await expect(page.getByTestId('outage-warning')).toBeVisible();
      // The cluster by what its errors say, not by its id.
      await expect(page.getByText(/^Redrive cluster “.+” in payments$/)).toBeVisible();
      await expect(page.getByText(clusterId!)).toHaveCount(0);
      await expectFitsWidth(page);

      // The gateway comes back when the demo's outage ends (a switch with an end time, not an event
      // the page shows); the lead confirms it is healthy, while the warning stands, and redrives slowly.
      await page.waitForTimeout(Math.max(0, outageEnds - Date.now()));
      await visit(page, `/redrives/new?cluster=${clusterId}&source=payments`);
      await expect(page.getByTestId('start-redrive').getByTestId('preview-count')).toHaveText(/^[1-9]\d*$/);
      const warned = await page.getByTestId('outage-warning').isVisible();
      const task = await start(page, {
        rate: 2,
        canary: true,
        reason: 'gateway healthy again: status page green, live captures succeed',
        confirmOutage: warned,
      });
      await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 90_000 });
      await expect(page.getByTestId('redrive-verdict')).toHaveText('worked');
      await expectFitsWidth(page);
      await snap(page, 'outage redrive worked');
      expect(task).toMatch(/^[0-9a-f-]{36}$/);
      await context.close();
    });

    test('poison orders: the canary dies before the fix, the task pauses; after the fix a resume works', async ({ browser }) => {
      const context = await browser.newContext({ viewport, storageState: stateFile('lead@triage.local') });
      const page = await context.newPage();
      triage('demo', 'deploy', 'v1');
      const batch = triage('demo', 'produce', '--orders', '20', '--payments', '0', '--notifications', '0') as { orders: { failing: string[] } };
      expect(batch.orders.failing.length).toBeGreaterThanOrEqual(2);
      await expect
        .poll(async () => (await openDeadLetters(page.request, 'orders')).count, { timeout: 30_000 })
        .toBeGreaterThanOrEqual(batch.orders.failing.length);
      const { clusterId } = await openDeadLetters(page.request, 'orders');

      await visit(page, '/inbox');
      await visit(page, `/clusters/${clusterId}`);
      await expect(page.getByTestId('start-redrive')).toBeVisible();
      const task = await start(page, { rate: 5, canary: true, reason: 'is the gift field handled yet?' });
      await expect(page.getByTestId('redrive-status')).toHaveText('paused', { timeout: 60_000 });
      await expect(page.getByTestId('paused-reason')).toContainText(/canary/i);
      await expectFitsWidth(page);
      await snap(page, 'task paused');

      // The source's redrive alarm says a task holds its dead letters.
      await expect(async () => {
        await visit(page, '/alarms?source=orders');
        await expect(page.locator('[data-testid="alarm-states"] tr[data-source="orders"][data-kind="redrive"]')).toContainText('redrive paused', {
          timeout: 1_000,
        });
      }).toPass({ timeout: 45_000 });

      triage('demo', 'deploy', 'v2');
      await visit(page, `/redrives/${task}`);
      await page.getByTestId('redrive-commands').getByLabel('Reason (optional)').fill('handler v2 deployed');
      await page.getByRole('button', { name: 'Resume' }).click();
      await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 90_000 });
      // Judged on what went after the resume: the canary that died before the fix is apart.
      await expect(page.getByTestId('since-resume-verdict')).toHaveText('worked');
      await expect(page.getByTestId('since-resume')).toContainText('before it: 1 dead again');
      await expectFitsWidth(page);
      await snap(page, 'resumed and worked');

      // The canary that died before the fix is open again (its next generation): now it goes too,
      // and the source is left as the night should end, with nothing of this story open.
      await visit(page, `/clusters/${clusterId}`);
      await start(page, { rate: 5, canary: false, reason: 'the canary that died before the fix' });
      await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 60_000 });
      await expect(page.getByTestId('redrive-verdict')).toHaveText('worked');
      await context.close();
    });
  });
}
