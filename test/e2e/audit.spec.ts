import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { append, SYSTEM_ACTOR, type AuditInput } from '@/lib/audit';
import { closeDb, db } from '@/lib/db';
import { parseCsvRows } from '../support/csv';
import { as, signInNewUser } from './helpers';

// The redrive engine's events, as it writes them (targetType redrive_task, the task id as target),
// appended through lib/audit so that this spec does not depend on a redrive having run.
const TASK = randomUUID();
const OTHER_TASK = randomUUID();
let financeEventId = '';

async function record(input: AuditInput) {
  return db().$transaction((tx) => append(tx, input));
}

async function actor(email: string) {
  const u = await db().user.findUniqueOrThrow({ where: { email } });
  return { userId: u.id, email: u.email, role: u.role };
}

test.beforeAll(async () => {
  const commerce = await db().team.findUniqueOrThrow({ where: { name: 'commerce' } });
  const finance = await db().team.findUniqueOrThrow({ where: { name: 'finance' } });
  const orders = await db().source.findUniqueOrThrow({ where: { name: 'orders' } });
  const payments = await db().source.findUniqueOrThrow({ where: { name: 'payments' } });
  const lead = await actor('lead@triage.local');
  const admin = await actor('admin@triage.local');
  const task = { targetType: 'redrive_task', targetId: TASK, teamId: commerce.id, sourceId: orders.id };
  await record({ ...task, actor: lead, action: 'redrive.start', reason: 'handler v2 deployed', selection: { cluster: 'c-17' }, count: 240 });
  await record({ ...task, actor: admin, action: 'redrive.approve', reason: 'over the approval threshold; checked the fix' });
  await record({ ...task, actor: lead, action: 'redrive.pause', reason: 'downstream slow' });
  await record({ ...task, actor: lead, action: 'redrive.resume' });
  await record({ ...task, actor: SYSTEM_ACTOR, action: 'redrive.finish', count: 240, result: 'completed: 238 acknowledged, 2 dead again' });
  await record({ actor: SYSTEM_ACTOR, action: 'redrive.start', targetType: 'redrive_task', targetId: OTHER_TASK, teamId: commerce.id, sourceId: orders.id });
  const f = await record({
    actor: await actor('finance-lead@triage.local'),
    action: 'deadletter.archive',
    targetType: 'dead_letter',
    targetId: '7',
    teamId: finance.id,
    sourceId: payments.id,
    reason: 'invalid for good',
    before: { customer: { email: 'carol@bank.example' }, card: '4111 1111 1111 1111' },
  });
  financeEventId = f.id.toString();
});

test.afterAll(closeDb);

/** The CSV's rows as objects keyed by its header. */
function parseCsv(text: string): Record<string, string>[] {
  const [header, ...data] = parseCsvRows(text);
  return data.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}

test.describe('the auditor', () => {
  test.use(as('auditor@triage.local'));

  test('filters the trail to one redrive task, reads its history and exports it: the export matches the page', async ({ browser }) => {
    // An auditor of its own: the exports are found on the trail by their actor, and other specs
    // running beside this one export as the demo's auditor.
    const { email, context, page } = await signInNewUser(browser, 'audit-export', 'auditor');
    await expect(page.getByTestId('whoami')).toHaveText(email);
    await page.goto('/audit');
    const filters = page.getByTestId('audit-filters');
    await filters.getByLabel('Target type').fill('redrive_task');
    await filters.getByLabel('Target id').fill(TASK);
    await filters.getByRole('button', { name: 'Filter' }).click();
    await expect(page).toHaveURL(new RegExp(`targetId=${TASK}`));

    const rows = page.getByTestId('audit-row');
    await expect(rows).toHaveCount(5);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({ id: tr.getAttribute('data-id'), cells: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '') })),
    );
    expect(shown.map((r) => r.cells[3])).toEqual(['redrive.finish', 'redrive.resume', 'redrive.pause', 'redrive.approve', 'redrive.start']);

    const history = page.getByTestId('redrive-timeline');
    await expect(history.locator('li')).toHaveCount(5);
    await expect(history.locator('li').first()).toContainText('redrive.start by lead@triage.local');
    await expect(history.locator('li').first()).toContainText('240 items');
    await expect(history.locator('li').first()).toContainText('why: handler v2 deployed');
    await expect(history.locator('li').nth(1)).toContainText('redrive.approve by admin@triage.local');
    await expect(history.locator('li').last()).toContainText('outcome: completed: 238 acknowledged, 2 dead again');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    expect(download.suggestedFilename()).toMatch(/^audit-.*\.csv$/);
    const exported = parseCsv(readFileSync((await download.path())!, 'utf8'));
    expect(exported.map((r) => r.id)).toEqual(shown.map((r) => r.id));
    for (const [i, r] of exported.entries()) {
      expect(r.at).toBe(shown[i]!.cells[1]);
      expect(`${r.actorEmail} (${r.actorRole})`).toBe(shown[i]!.cells[2]);
      expect(r.action).toBe(shown[i]!.cells[3]);
      expect(`${r.targetType} ${r.targetId}`).toBe(shown[i]!.cells[4]);
      expect(r.count).toBe(shown[i]!.cells[6]);
      expect(r.reason || r.result).toBe(shown[i]!.cells[7]);
    }

    const ndjsonHref = await page.getByTestId('export-ndjson').getAttribute('href');
    const ndjson = await page.request.get(ndjsonHref!);
    expect(ndjson.headers()['content-type']).toContain('application/x-ndjson');
    const lines = (await ndjson.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(lines.map((l) => l.id)).toEqual(shown.map((r) => r.id));

    // Both exports are on the trail, newest first, with the filter they used.
    await page.goto(`/audit?${new URLSearchParams({ action: 'audit.export', actor: email })}`);
    const exports = page.getByTestId('audit-row');
    await exports.nth(1).getByRole('link').click();
    await expect(page.getByTestId('audit-selection')).toContainText(`"targetId": "${TASK}"`);
    await expect(page.getByTestId('audit-selection')).toContainText('"format": "csv"');
    await page.goBack();
    await exports.first().getByRole('link').click();
    await expect(page.getByTestId('audit-selection')).toContainText('"format": "ndjson"');
    await context.close();
  });

  test('opens an event: before and after as JSON text, masked for a role without reveal, hash checked', async ({ page }) => {
    await page.goto(`/audit/${financeEventId}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Audit event ${financeEventId}`);
    await expect(page.getByTestId('audit-event')).toContainText('content matches its hash');
    await expect(page.getByTestId('audit-before')).toContainText('"email": "c****@bank.example"');
    await expect(page.getByTestId('audit-before')).toContainText('"card": "**** **** **** 1111"');
    await expect(page.getByTestId('audit-before')).not.toContainText('carol@');
  });

  test('verifies the chain from the page', async ({ page }) => {
    await page.goto('/audit');
    await page.getByRole('link', { name: 'Verify the chain' }).click();
    await page.getByRole('button', { name: 'Verify now' }).click();
    await expect(page.getByTestId('verify-result')).toContainText('intact');
  });
});

test.describe('a team lead', () => {
  test.use(as('lead@triage.local'));

  test("sees the own team's trail only; another team's event does not exist", async ({ page }) => {
    await page.goto(`/audit?targetType=redrive_task&targetId=${TASK}`);
    await expect(page.getByTestId('audit-row')).toHaveCount(5);
    // The archives on the lead's trail are commerce's own (the demo's past has weeks of them; specs
    // running beside this one archive in sources of their own); finance's is not among them.
    await page.goto('/audit?action=deadletter.archive');
    const archives = page.getByTestId('audit-row');
    await expect(archives.first()).toBeVisible();
    await expect(page.locator(`[data-testid="audit-row"][data-id="${financeEventId}"]`)).toHaveCount(0);
    const shown = (await archives.locator('td:nth-child(6)').allTextContents()).map((s) => s.trim());
    const commerce = await db().source.findMany({ where: { name: { in: shown }, team: { name: 'commerce' } }, select: { name: true } });
    expect(new Set(shown)).toEqual(new Set(commerce.map((s) => s.name)));
    const res = await page.goto(`/audit/${financeEventId}`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('link', { name: 'Verify the chain' })).toHaveCount(0);
    await page.goto('/audit/verify');
    await expect(page).toHaveURL(/\/forbidden$/);
  });
});

test('an admin, who may reveal a dead letter, reads the trail masked too: no reveal covers it', async ({ browser }) => {
  const context = await browser.newContext(as('admin@triage.local'));
  const page = await context.newPage();
  await page.goto(`/audit/${financeEventId}`);
  await expect(page.getByTestId('audit-before')).toContainText('"email": "c****@bank.example"');
  await expect(page.getByTestId('audit-before')).not.toContainText('carol@bank.example');
  await context.close();
});
