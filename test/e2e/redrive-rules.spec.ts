// Redrive rules: the demo's payments source carries the finance lead's seeded rule
// "redrive the wave after a gateway outage". A gateway outage parks a wave of captures; once the
// rate alarm has been OK for the rule's 30 s after it (the browser tests' rate window is 30 s,
// scripts/e2e.mjs), the rule starts an ordinary redrive task for its author, canary first, and every
// capture comes back acknowledged. The lead reads it on the source page and the task page.
import { expect, test, type APIRequestContext } from '@playwright/test';
import { DEMO_REDRIVE_RULES } from '../../prisma/seed';
import { as, triage } from './helpers';

test.describe.configure({ mode: 'serial' });
test.use(as('finance-lead@triage.local'));

const RULE = DEMO_REDRIVE_RULES.find((r) => r.source === 'payments')!;

async function openPayments(request: APIRequestContext): Promise<number> {
  const r = await request.get('/api/v1/dead-letters?source=payments&status=open&count=true&limit=1');
  expect(r.status()).toBe(200);
  return ((await r.json()) as { count: { count: number } }).count.count;
}

type TaskView = {
  id: string;
  status: string;
  rule: { id: string; name: string; kind: string } | null;
  createdBy: string | null;
  canary: boolean;
  counts: { total: number; acknowledged: number; deadAgain: number };
  canaryItem: { state: string; outcomeAt: string | null; nextSentAt: string | null } | null;
};

test('the payments outage wave is redriven by the rule once the outage is over, canary first', async ({ page, request }) => {
  test.setTimeout(300_000);
  // The rule, as the seed made it, on the source page.
  await page.goto('/sources/payments');
  const row = page.getByTestId(`redrive-rule-${RULE.name}`);
  await expect(row).toContainText('enabled');
  await expect(row).toContainText(`by ${RULE.author!}`);
  await expect(row).toContainText('the rate alarm has been OK for 30 s after a wave');
  const before = await openPayments(request);

  // The gateway goes down for 8 s while captures are sent: every one of them is parked.
  const batch = triage('demo', 'produce', '--orders', '0', '--payments', '30', '--notifications', '0', '--outage', '8') as { payments: { failing: string[] } };
  expect(batch.payments.failing).toHaveLength(30);
  await expect.poll(() => openPayments(request), { timeout: 60_000 }).toBe(before + 30);

  // Nothing is redriven while the wave is on; the rule starts its task once the alarm has been OK for 30 s.
  let task: TaskView | undefined;
  await expect
    .poll(
      async () => {
        const r = await request.get('/api/v1/redrives?source=payments&limit=20');
        const tasks = ((await r.json()) as { tasks: TaskView[] }).tasks;
        task = tasks.find((t) => t.rule?.name === RULE.name);
        return task?.id ?? null;
      },
      { timeout: 200_000, intervals: [2_000] },
    )
    .not.toBeNull();
  expect(task).toMatchObject({ createdBy: RULE.author, canary: true });

  await page.goto(`/redrives/${task!.id}`);
  await expect(page.getByTestId('redrive-origin')).toContainText(`redrive rule “${RULE.name}” (after a wave)`);
  await expect(page.getByTestId('redrive-origin')).toContainText(RULE.author!);
  await expect(page.getByTestId('redrive-status')).toHaveText('completed', { timeout: 90_000 });
  const total = await page.getByTestId('count-total').textContent();
  expect(Number(total)).toBeGreaterThanOrEqual(30);
  await expect(page.getByTestId('count-acknowledged')).toHaveText(total!);
  await expect(page.getByTestId('count-deadAgain')).toHaveText('0');
  // The canary went first: acknowledged before the next capture was sent.
  await expect(page.getByTestId('redrive-canary')).toContainText('acknowledged');
  await expect(page.getByTestId('redrive-canary')).toContainText('the rest from');
  const detail = (await (await request.get(`/api/v1/redrives/${task!.id}`)).json()) as TaskView;
  expect(detail.canaryItem).toMatchObject({ state: 'acknowledged' });
  expect(Date.parse(detail.canaryItem!.outcomeAt!)).toBeLessThanOrEqual(Date.parse(detail.canaryItem!.nextSentAt!));
  await expect(page.getByTestId('redrive-audit')).toContainText(`redrive.start by ${RULE.author}`);

  // The payments cluster ends with its dead letters acknowledged: nothing of payments left open.
  await expect.poll(() => openPayments(request), { timeout: 30_000 }).toBe(0);

  // The source page tells the rule's last run and links the task.
  await page.goto('/sources/payments');
  await expect(row.getByTestId('rule-last-result')).toContainText(`started task ${task!.id}`);
  await expect(row.getByRole('link', { name: task!.id.slice(0, 8) })).toHaveAttribute('href', `/redrives/${task!.id}`);
});

test('support reads the rules but cannot change them', async ({ browser }) => {
  const context = await browser.newContext(as('finance-support@triage.local'));
  const page = await context.newPage();
  await page.goto('/sources/payments');
  await expect(page.getByTestId(`redrive-rule-${RULE.name}`)).toContainText('enabled');
  await expect(page.getByTestId('new-redrive-rule-form')).toHaveCount(0);
  await expect(page.getByRole('button', { name: `Disable rule ${RULE.name}` })).toHaveCount(0);
  await context.close();
});
