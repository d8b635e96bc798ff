// Saved views in the browser: a saved inbox view shared with the team is opened by a teammate from the
// navigation and shows the same causes, while an auditor (of no team) neither sees nor opens it; and
// the ownership of a cause (assign, hold with a note and an end date, resolve) shows in the inbox's
// filters and on the SLA board's on-hold list. Each story on a source of its own, with dead letters
// written through the one write path (recordDeadLetters); names are words (masking hides digit runs).
import { randomInt } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { SYSTEM } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { createSource } from '@/lib/sources/create-source';
import { as } from './helpers';

test.afterAll(closeDb);

/** A unique lowercase word: no digits, no hex, so masking never hides it on a page. */
const word = (n = 8) => Array.from({ length: n }, () => 'bcdfghjklmnpqrstvwxz'[randomInt(20)]).join('');

async function sourceWithCauses(prefix: string, causes: string[]): Promise<{ name: string; clusterIds: string[] }> {
  const commerce = await db().team.findUniqueOrThrow({ where: { name: 'commerce' } });
  const source = await createSource({ ...SYSTEM, label: 'e2e' }, { name: `${prefix}-${word()}`, team: commerce.id });
  const clusterIds: string[] = [];
  for (const cause of causes) {
    const [r] = await recordDeadLetters({ id: source.id, retentionSeconds: source.retentionSeconds }, [
      {
        messageId: `${cause}-a`,
        payload: Buffer.from('{"order":"one"}'),
        reason: 'Rejected',
        errorType: `${cause}Error`,
        errorMessage: `the ${cause} service refused the order`,
      },
      {
        messageId: `${cause}-b`,
        payload: Buffer.from('{"order":"two"}'),
        reason: 'Rejected',
        errorType: `${cause}Error`,
        errorMessage: `the ${cause} service refused the order`,
      },
    ]);
    const d = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(r!.id) }, select: { clusterId: true } });
    clusterIds.push(d.clusterId!);
  }
  return { name: source.name, clusterIds };
}

const rows = (page: Page) => page.getByTestId('cluster-row');

test.describe('saved views', () => {
  test('a support engineer shares an inbox view; the lead opens it from the nav and sees the same causes; an auditor does not see it', async ({ browser }) => {
    const causes = [word(), word()];
    const { name: sourceName } = await sourceWithCauses('views', causes);
    const viewName = `causes of ${sourceName}`;

    const support = await browser.newContext(as('support@triage.local'));
    const page = await support.newPage();
    await page.goto('/inbox');
    await page.getByRole('combobox', { name: 'Source' }).selectOption(sourceName);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page).toHaveURL(new RegExp(`source=${sourceName}`));
    await expect(rows(page)).toHaveCount(2);
    const form = page.getByTestId('save-view');
    await form.getByLabel('Save these filters as').fill(viewName);
    await form.getByLabel('share with my team').check();
    await form.getByRole('button', { name: 'Save view' }).click();
    await expect(form.getByRole('status')).toContainText(`Saved "${viewName}", shared with your team.`);
    await page.reload();
    await expect(page.getByTestId('nav-views').getByRole('link', { name: viewName })).toBeVisible();
    await support.close();

    const lead = await browser.newContext(as('lead@triage.local'));
    const leadPage = await lead.newPage();
    await leadPage.goto('/sla');
    const shared = leadPage.getByTestId('nav-views').getByRole('link', { name: viewName });
    await expect(shared).toContainText('support');
    await shared.click();
    await expect(leadPage).toHaveURL(new RegExp(`/inbox\\?source=${sourceName}`));
    await expect(leadPage.getByTestId('opened-view')).toHaveText(`View ${viewName} (shared by support@triage.local)`);
    await expect(rows(leadPage)).toHaveCount(2);
    for (const cause of causes) await expect(rows(leadPage).filter({ hasText: `${cause}Error` })).toHaveCount(1);
    const href = (await shared.getAttribute('href'))!;
    await lead.close();

    const auditor = await browser.newContext(as('auditor@triage.local'));
    const auditorPage = await auditor.newPage();
    await auditorPage.goto('/audit');
    await expect(auditorPage.getByTestId('nav-views')).toBeVisible();
    await expect(auditorPage.getByTestId('nav-views').getByRole('link', { name: viewName })).toHaveCount(0);
    const res = await auditorPage.goto(href);
    expect(res?.status()).toBe(404);
    // The audit trail shows the view's creation to the auditor, who reads every team's trail.
    await auditorPage.goto('/audit?action=view.create');
    await expect(auditorPage.getByTestId('audit-table').getByRole('row').filter({ hasText: 'support@triage.local' }).first()).toBeVisible();
    await auditor.close();
  });
});

test.describe('ownership of a cause', () => {
  test.use(as('support@triage.local'));

  test('assigning, holding with a note and an end date, and resolving show in the inbox filters and on the SLA board', async ({ page }) => {
    const cause = word();
    const { name: sourceName, clusterIds } = await sourceWithCauses('owned', [cause]);
    const clusterId = clusterIds[0]!;
    const errorType = `${cause}Error`;
    const note = `waiting for the ${cause} team to deploy their fix`;

    await page.goto(`/clusters/${clusterId}`);
    const panel = page.getByTestId('cluster-ownership');
    const form = panel.getByTestId('ownership-form');
    await form.getByLabel('Assignee').fill('me');
    await form.getByLabel('Status').selectOption('investigating');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(form.getByRole('status')).toBeVisible();
    await expect(panel.getByTestId('ownership-assignee')).toHaveText('assigned to support@triage.local');

    await page.goto(`/inbox?owner=mine&source=${sourceName}`);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).getByTestId('cluster-assignee')).toHaveText('support@triage.local');
    await page.goto(`/inbox?owner=unassigned&source=${sourceName}`);
    await expect(rows(page)).toHaveCount(0);

    // On hold: a note and an end date; the clock keeps running, and the SLA board lists it.
    await page.goto(`/clusters/${clusterId}`);
    await form.getByLabel('Status').selectOption('on_hold');
    const until = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 16);
    await form.getByLabel('Hold until').fill(until);
    await form.getByLabel('Note (why it waits)').fill(note);
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(panel.getByTestId('ownership-status')).toHaveText('on hold');
    await expect(panel.getByTestId('ownership-notes')).toContainText(note);

    await page.goto(`/inbox?owner=on_hold&source=${sourceName}`);
    await expect(rows(page)).toHaveCount(1);
    await expect(rows(page).getByTestId('cluster-owner-status')).toHaveText('on hold');
    await page.goto('/sla');
    const held = page.getByTestId('sla-on-hold').getByTestId('sla-on-hold-cluster').filter({ hasText: sourceName });
    await expect(held).toHaveCount(1);
    await expect(held).toContainText('support@triage.local');

    // Resolved: off the hold list and the on-hold filter, still in the inbox with its open dead letters.
    await page.goto(`/clusters/${clusterId}`);
    await form.getByLabel('Status').selectOption('resolved');
    await form.getByLabel('Fix version').fill('the release after this one');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(panel.getByTestId('ownership-status')).toHaveText('resolved');
    await page.goto(`/inbox?owner=on_hold&source=${sourceName}`);
    await expect(rows(page)).toHaveCount(0);
    await page.goto(`/inbox?errorType=${errorType}`);
    await expect(rows(page).getByTestId('cluster-owner-status')).toHaveText('resolved');
    await page.goto('/sla');
    await expect(page.getByTestId('sla-on-hold').getByTestId('sla-on-hold-cluster').filter({ hasText: sourceName })).toHaveCount(0);
  });

  test("the cluster page's start form offers another source as the destination, as /redrives/new does", async ({ page }) => {
    const { clusterIds } = await sourceWithCauses('origin', [word()]);
    const commerce = await db().team.findUniqueOrThrow({ where: { name: 'commerce' } });
    const destination = await createSource({ ...SYSTEM, label: 'e2e' }, { name: `destination-${word()}`, team: commerce.id });
    await page.goto(`/clusters/${clusterIds[0]}`);
    const choice = page.getByRole('combobox', { name: 'Destination' });
    await expect(choice).toBeVisible();
    await expect(choice.locator('option', { hasText: destination.name })).toHaveCount(1);
  });
});
