// People correct the clustering: a lead splits a cluster by a payload field after its
// preview, sees the new clusters with their counts in the inbox, and finds the split on the audit
// trail; a grouping rule set on a source's page makes new dead letters land in the rule's clusters.
// Dead letters are written through the one write path (recordDeadLetters), as ingest writes them.
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { SYSTEM } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { createSource } from '@/lib/sources/create-source';
import { as } from './helpers';

test.afterAll(closeDb);

const tag = () => randomBytes(4).toString('hex');

function deadLetter(errorType: string, type: string, i: number): NewDeadLetter {
  return {
    messageId: `corr-${tag()}-${i}`,
    payload: Buffer.from(JSON.stringify({ type, order: i })),
    reason: 'Rejected',
    errorType,
    errorMessage: `order ${1000 + i} could not be applied`,
  };
}

test.describe('correcting clusters', () => {
  test.use(as('lead@triage.local'));

  test('a lead splits a cluster by a payload field, sees both clusters with their counts in the inbox, and the audit trail records it', async ({ page }) => {
    const errorType = `SplitMe${tag()}Error`;
    // A source of its own: the demo's orders queue is another spec's story, emptied by its redrive.
    const commerce = await db().team.findUniqueOrThrow({ where: { name: 'commerce' } });
    const source = await createSource({ ...SYSTEM, label: 'e2e' }, { name: `split-${tag()}`, team: commerce.id });
    const recorded = await recordDeadLetters({ id: source.id, retentionSeconds: source.retentionSeconds }, [
      ...[1, 2, 3].map((i) => deadLetter(errorType, 'order.created', i)),
      ...[4, 5].map((i) => deadLetter(errorType, 'order.updated', i)),
    ]);
    const { clusterId } = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(recorded[0]!.id) } });

    await page.goto(`/clusters/${clusterId}`);
    await expect(page.getByTestId('cluster-count')).toHaveText('5');
    const form = page.getByTestId('split-cluster-form');
    await form.getByLabel('Split by').selectOption('payload');
    await form.getByRole('textbox', { name: 'JSON path' }).fill('$.type');
    await form.getByRole('button', { name: 'Preview' }).click();
    const parts = form.getByTestId('split-part');
    await expect(parts).toHaveCount(2);
    await expect(parts.nth(0)).toContainText('order.created');
    await expect(parts.nth(0)).toContainText('3');
    await expect(parts.nth(0)).toContainText('keeps this cluster');
    await expect(parts.nth(1)).toContainText('order.updated');
    await expect(parts.nth(1)).toContainText('2');
    await form.getByLabel('Reason').fill('created and updated orders fail for different reasons');
    await form.getByRole('button', { name: 'Split into 2 clusters' }).click();
    await expect(form.getByRole('status')).toHaveText('Split into 2 clusters.');

    await page.goto(`/inbox?errorType=${errorType}`);
    const rows = page.getByTestId('cluster-row');
    await expect(rows).toHaveCount(2);
    const created = rows.filter({ hasText: '$.type=order.created' });
    const updated = rows.filter({ hasText: '$.type=order.updated' });
    await expect(created.getByTestId('cluster-open')).toHaveText('3');
    await expect(updated.getByTestId('cluster-open')).toHaveText('2');
    // The largest part kept the cluster's id.
    await expect(created).toHaveAttribute('data-id', clusterId!);

    await page.goto('/audit');
    const event = page.getByRole('row').filter({ hasText: 'cluster.split' }).first();
    await expect(event).toContainText('lead@triage.local');
    await expect(event).toContainText('created and updated orders fail for different reasons');
  });

  test('a grouping rule on a source makes new dead letters land in the rule clusters', async ({ page }) => {
    const commerce = await db().team.findUniqueOrThrow({ where: { name: 'commerce' } });
    const source = await createSource({ ...SYSTEM, label: 'e2e' }, { name: `rules-${tag()}`, team: commerce.id });
    await page.goto(`/sources/${source.name}`);
    const form = page.getByTestId('grouping-rules-form');
    await form.getByLabel('Group by payload paths').fill('$.type');
    await form.getByLabel('Reason').fill('refunds and charges fail apart');
    await form.getByRole('button', { name: 'Save rules' }).click();
    await expect(form.getByRole('status')).toContainText('Saved (version 1)');

    const errorType = `Ruled${tag()}Error`;
    await recordDeadLetters({ id: source.id, retentionSeconds: source.retentionSeconds }, [
      deadLetter(errorType, 'refund', 1),
      deadLetter(errorType, 'charge', 2),
      deadLetter(errorType, 'refund', 3),
    ]);
    await page.goto(`/inbox?errorType=${errorType}`);
    const rows = page.getByTestId('cluster-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.filter({ hasText: '$.type=refund' }).getByTestId('cluster-open')).toHaveText('2');
    await expect(rows.filter({ hasText: '$.type=charge' }).getByTestId('cluster-open')).toHaveText('1');
  });
});
