// The source queue beside its DLQ, as a lead sees it: an admin names a RabbitMQ source's source queue
// in the create form; its work queue has messages and no consumer while the DLQ is empty; the
// maintenance worker reads it, and the source page and the SLA board say "no consumer" at a glance,
// on the desktop and on a 390 px phone; a consumer attached, they say it is consumed again.
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { expect, test, type Page } from '@playwright/test';
import { as, createSourceOnAdminPage, expectFitsWidth, PHONE } from './helpers';

const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672/';
const run = `e2e.${randomBytes(3).toString('hex')}`;
const [name, dlq, work] = [run.replace('.', '-srcq-'), `${run}.dlq`, `${run}.work`];
let consumer: amqp.ChannelModel | null = null;

test.use(as('admin@triage.local'));

test.afterAll(async () => {
  await consumer?.close().catch(() => undefined);
  const conn = await amqp.connect(AMQP_URL);
  const ch = await conn.createChannel();
  for (const q of [work, dlq]) await ch.deleteQueue(q).catch(() => undefined);
  await conn.close();
});

/** The page is rendered from the stored reading: reload until the maintenance worker's next read shows. */
async function reloadUntil(page: Page, url: string, check: () => Promise<void>) {
  await expect(async () => {
    await page.goto(url);
    await check();
  }).toPass({ timeout: 60_000 });
}

test('a source queue with messages and no consumer shows "no consumer" on the source page and the SLA board', async ({ page, browser }) => {
  const conn = await amqp.connect(AMQP_URL);
  const ch = await conn.createConfirmChannel();
  await ch.assertQueue(dlq, { durable: true });
  await ch.assertQueue(work, { durable: true });
  for (let i = 0; i < 4; i++) ch.sendToQueue(work, Buffer.from(JSON.stringify({ order: i })));
  await ch.waitForConfirms();
  await conn.close();

  await createSourceOnAdminPage(page, {
    name,
    team: 'commerce',
    kind: 'rabbitmq',
    fields: {
      'AMQP URL (with credentials)': AMQP_URL,
      'Dead-letter queue': dlq,
      'Source queue (what your consumer reads; default: the redrive queue)': work,
    },
  });

  // The maintenance worker reads the source queue and the connector polls the DLQ on their own
  // clocks: on a loaded machine either may come first, so reload until both have been read.
  const figures = page.getByTestId('health-source-queue');
  await reloadUntil(page, `/sources/${name}`, async () => {
    await expect(figures.getByText('no consumer', { exact: true })).toBeVisible({ timeout: 2_000 });
    // The DLQ itself is empty: its figures alone would say all is well.
    await expect(page.getByTestId('health-lag')).toHaveText('0', { timeout: 2_000 });
  });
  await expect(figures).toContainText(`${work}: 4 waiting · 0 consumers`);
  await expect(figures).not.toContainText('stale');

  // The lead's SLA board, beside the DLQ's open and oldest figures, on the desktop and the phone.
  const lead = await browser.newContext(as('lead@triage.local'));
  const board = await lead.newPage();
  await board.goto('/sla');
  const cell = board.getByTestId('sla-board').locator(`tr[data-source="${name}"] td[data-col="source-queue"]`);
  await expect(cell.getByText('no consumer', { exact: true })).toBeVisible();
  await expect(cell).toContainText('4 waiting · 0 consumers');
  await board.setViewportSize(PHONE);
  await board.reload();
  await expectFitsWidth(board);
  await board.goto(`/sources/${name}`);
  await expect(board.getByTestId('health-source-queue').getByText('no consumer', { exact: true })).toBeVisible();
  await expectFitsWidth(board);

  // A consumer attached (a slow one, holding one message): "no consumer" goes.
  consumer = await amqp.connect(AMQP_URL);
  const c = await consumer.createChannel();
  await c.prefetch(1);
  await c.consume(work, () => undefined);
  await reloadUntil(board, `/sources/${name}`, async () => {
    await expect(board.getByTestId('health-source-queue')).toContainText('3 waiting · 1 consumer', { timeout: 2_000 });
  });
  await expect(board.getByTestId('health-source-queue').getByText('no consumer', { exact: true })).toHaveCount(0);
  await lead.close();
});
