// The demo's poison orders (an unknown field "gift", each with its own order number) land as ONE
// cluster in support's inbox with the right count; archiving that cluster from its page archives
// every member and writes one audit event naming the selection and the count. The consumer worker
// runs beside the app and dead-letters the poison as it would in production.
import { expect, test } from '@playwright/test';
import { closeDb, db } from '@/lib/db';
import { as, triage } from './helpers';

const TEMPLATE = 'unknown field "<*>" in order <*>';

/** Open dead letters already in the orders poison cluster (another spec may have left some). */
async function openInGiftCluster(): Promise<number> {
  const cluster = await db().cluster.findFirst({ where: { template: TEMPLATE, errorType: 'OrderSchemaError', mergedIntoId: null } });
  return cluster?.openCount ?? 0;
}

test.afterAll(closeDb);

test.describe('clusters', () => {
  test.use(as('support@triage.local'));

  test('the demo poison is one cluster with the right count, and archiving it archives every member with one audit event', async ({ page, browser }) => {
    triage('demo', 'deploy', 'v1');
    const before = await openInGiftCluster();
    const batch = triage('demo', 'produce', '--orders', '30', '--payments', '0', '--notifications', '0') as { orders: { failing: string[] } };
    const poison = batch.orders.failing;
    expect(poison.length).toBeGreaterThanOrEqual(5);
    await expect
      .poll(() => db().deadLetter.count({ where: { messageId: { in: poison } } }), { timeout: 30_000, message: 'the consumer dead-letters every poison order' })
      .toBe(poison.length);
    const members = await db().deadLetter.findMany({ where: { messageId: { in: poison } }, select: { clusterId: true } });
    expect(new Set(members.map((m) => m.clusterId)).size).toBe(1);
    const open = before + poison.length;

    // Support's inbox: one row for the cause, with its count.
    await page.goto('/inbox');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Inbox');
    const row = page.getByTestId('cluster-row').filter({ hasText: TEMPLATE });
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('cluster-open')).toHaveText(String(open));
    await expect(row).toContainText('OrderSchemaError');
    // An unknown field is a permanent error: poison, not an outage.
    await expect(row.getByTestId('cluster-verdict')).toHaveText('poison');
    await expect(row).toContainText('orders');

    await row.getByRole('link', { name: TEMPLATE }).click();
    await expect(page).toHaveURL(/\/clusters\/[0-9a-f-]{36}$/);
    const clusterId = page.url().split('/').pop()!;
    await expect(page.getByTestId('cluster-template')).toHaveText(TEMPLATE);
    await expect(page.getByTestId('cluster-open')).toHaveText(String(open));
    // Every member is listed (all statuses, a page of 50): earlier specs may have decided some already.
    const { count: total } = await db().cluster.findUniqueOrThrow({ where: { id: clusterId } });
    await expect(page.getByTestId('member-row')).toHaveCount(Math.min(total, 50));

    const archive = page.getByTestId('archive-cluster-form');
    await archive.getByLabel('Reason to archive').fill('invalid for good: gift orders are not supported');
    await archive.getByRole('button', { name: `Archive ${open} open dead letters` }).click();
    await expect(archive.getByRole('status')).toHaveText(`Archived ${open} dead letters.`);

    await page.reload();
    await expect(page.getByTestId('cluster-open')).toHaveText('0');
    const archived = await db().deadLetter.findMany({ where: { messageId: { in: poison } }, select: { status: true, decisionReason: true } });
    expect(archived.every((d) => d.status === 'archived' && d.decisionReason === 'invalid for good: gift orders are not supported')).toBe(true);
    await page.goto('/inbox');
    await expect(page.getByTestId('cluster-row').filter({ hasText: TEMPLATE })).toHaveCount(0);

    // One audit event naming the selection and the count, as the auditor reads the trail.
    const events = await db().auditEvent.findMany({ where: { action: 'cluster.archive', targetId: clusterId } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actorEmail: 'support@triage.local', selection: { cluster: clusterId }, count: open });
    const auditor = await browser.newContext(as('auditor@triage.local'));
    const trail = await auditor.newPage();
    await trail.goto(`/audit?${new URLSearchParams({ action: 'cluster.archive', targetType: 'cluster', targetId: clusterId })}`);
    const rows = trail.getByTestId('audit-row');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('cluster.archive');
    await expect(rows.first()).toContainText(String(open));
    await auditor.close();
  });
});
