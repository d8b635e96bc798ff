// An admin sets up a RabbitMQ source in the admin form against the local RabbitMQ, pauses its import,
// tests the connection and sees the queue's depth and consumers, resumes, and watches the source
// page's health count what the connectors worker imported. The password never reaches a page.
import { randomBytes } from 'node:crypto';
import amqp from 'amqplib';
import { expect, test, type Page } from '@playwright/test';
import { as, createSourceOnAdminPage } from './helpers';

test.describe.configure({ mode: 'serial' });
test.use(as('admin@triage.local'));

const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672/';
const suffix = randomBytes(3).toString('hex');
const name = `e2e-rmq-${suffix}`;
const queue = `e2e.${suffix}.dlq`;

/** A confirm channel: what `fn` published is on the broker before the connection closes. */
async function withChannel<T>(fn: (ch: amqp.ConfirmChannel) => Promise<T>): Promise<T> {
  const conn = await amqp.connect(AMQP_URL);
  try {
    const ch = await conn.createConfirmChannel();
    const result = await fn(ch);
    await ch.waitForConfirms();
    return result;
  } finally {
    await conn.close();
  }
}

/** Clicks "Test connection" until the report's fact `name` reads `want` (the worker stops within a discovery tick). */
async function testUntil(page: Page, fact: string, want: string) {
  const panel = page.getByTestId('connection-test');
  await expect(async () => {
    await panel.getByRole('button', { name: 'Test connection' }).click();
    await expect(panel.getByTestId('connection-report').locator(`tr[data-fact="${fact}"] td`)).toHaveText(want, { timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
}

test.afterAll(async () => {
  await withChannel((ch) => ch.deleteQueue(queue)).catch(() => undefined);
});

test('an admin creates a RabbitMQ source, tests its connection and sees the health of its import', async ({ page }) => {
  await withChannel((ch) => ch.assertQueue(queue, { durable: true }));

  const form = await createSourceOnAdminPage(page, {
    name,
    team: 'commerce',
    kind: 'rabbitmq',
    fields: { 'AMQP URL (with credentials)': AMQP_URL, 'Dead-letter queue': queue },
  });
  await form.getByRole('link', { name: 'open it →' }).click();
  await expect(page).toHaveURL(new RegExp(`/sources/${name}$`));

  // Pause the import so the queue keeps what is published next, then look at it through the probe.
  const health = page.getByTestId('connector-health');
  await expect(health).toContainText(`Reads ${queue} (rabbitmq) · credentials set`);
  // Without a management URL the queue's arguments cannot be read over AMQP: the page says so, and how to fix it.
  await expect(health.getByTestId('connector-trap')).toContainText('Settings not readable without the management API');
  await expect(health.getByTestId('connector-trap')).toContainText('Change: Set managementUrl in the connection settings');
  await health.getByTestId('import-switch').getByRole('button', { name: 'Pause import' }).click();
  await expect(health.getByTestId('import-switch').getByRole('status')).toHaveText('Import paused: messages wait on the broker');
  // An import the worker started before the pause stops at its next read of the sources
  // (CONNECTOR_DISCOVERY_MS, 5 s): past that, the queue has no consumer.
  await page.waitForTimeout(6_000);
  await testUntil(page, 'consumers', '0');

  await withChannel(async (ch) => {
    for (let i = 0; i < 3; i++) {
      ch.sendToQueue(queue, Buffer.from(JSON.stringify({ order: i })), {
        messageId: `e2e-${suffix}-${i}`,
        headers: { 'x-exception-message': `order ${i} has an unknown field "gift"`, 'x-exception-fqcn': 'com.shop.ValidationException' },
      });
    }
  });
  await testUntil(page, 'depth', '3');
  const report = page.getByTestId('connection-report');
  await expect(report).toContainText('connected');
  await expect(report.locator('tr[data-fact="exists"] td')).toHaveText('true');
  await expect(report).toContainText(`Queue "${queue}" exists: 3 messages, 0 consumers`);
  await expect(report.getByTestId('connection-trap')).toContainText('x-delivery-limit, x-dead-letter-strategy and x-message-ttl were not checked');

  // Resume: the connectors worker imports the three and the page shows it.
  await page.reload();
  await page.getByTestId('import-switch').getByRole('button', { name: 'Resume import' }).click();
  await expect(page.getByTestId('import-switch').getByRole('status')).toHaveText('Import resumed');
  // The page is rendered on the server: reload until the worker's health rows say so (the lag is
  // the queue's depth, which the import polls every few seconds).
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('health-imported')).toHaveText('3', { timeout: 2_000 });
    await expect(page.getByTestId('health-lag')).toHaveText('0', { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(page.getByTestId('import-state')).toHaveText('running');
  await expect(page.getByTestId('health-last-success')).toContainText('UTC');
  await expect(page.getByTestId('health-last-error')).toHaveText('none');
  // Spring's headers carried the error text: no "reason only" notice.
  await expect(page.getByTestId('error-text-notice')).toHaveCount(0);

  // The dead letters are there, with the exception mapped.
  await page.goto(`/dead-letters?source=${name}&status=open`);
  await expect(page.getByText('com.shop.ValidationException').first()).toBeVisible();
});

test('the connection page shows the credentials only as set, and saves a change', async ({ page }) => {
  await page.goto(`/admin/sources/${name}`);
  const form = page.getByTestId('connection-form');
  await expect(form.getByText('AMQP URL (with credentials): set — replace')).toBeVisible();
  await expect(form.getByLabel('AMQP URL (with credentials)', { exact: true })).toHaveValue('');
  expect(await page.content()).not.toContain('guest:guest');
  await form.getByText('Where the error text lives').click();
  await form.getByLabel('Error message header').fill('x-error');
  await form.getByRole('button', { name: 'Save connection' }).click();
  await expect(form.getByRole('status')).toHaveText(`Connection of ${name} saved`);
  await page.reload();
  await expect(page.getByTestId('connection-form').getByLabel('Error message header')).toHaveValue('x-error');

  // The audit trail records the change, the credentials untouched and never shown.
  await page.goto(`/audit`);
  await expect(page.getByText('source.connection.update').first()).toBeVisible();
  expect(await page.content()).not.toContain('guest:guest');
});

test('the create form offers SQS and NATS with their own fields; an SQS source page says when retention could not be checked', async ({ page }) => {
  await page.goto('/admin');
  const form = page.getByTestId('create-source');
  const kind = form.getByLabel('Kind');
  for (const label of ['Amazon SQS dead-letter queue', 'NATS JetStream consumer (max deliveries)']) {
    await expect(kind.locator('option', { hasText: label })).toBeEnabled();
    await expect(kind.locator('option', { hasText: label })).not.toContainText('not in this version');
  }

  await kind.selectOption('nats');
  const nats = form.getByTestId('connection-fields-nats');
  for (const label of ['NATS URL (credentials may be in it)', 'Stream', 'Durable consumer (with max_deliver)', 'After import']) {
    await expect(nats.getByLabel(label, { exact: true })).toBeVisible();
  }

  await kind.selectOption('sqs');
  const sqsFields = {
    'Dead-letter queue URL': 'http://127.0.0.1:9/000000000000/orders-dlq',
    'Endpoint (SQS-compatible server, optional)': 'http://127.0.0.1:9',
    'Region (default: from the queue URL)': 'us-east-1',
    'Access key id (optional)': 'AKIAE2ETEST',
    'Secret access key (optional)': 'e2e-secret-key-never-shown',
  };
  const sqs = form.getByTestId('connection-fields-sqs');
  for (const label of Object.keys(sqsFields)) await expect(sqs.getByLabel(label, { exact: true })).toBeVisible();

  // An endpoint nothing listens on: the page must still render, saying the check failed.
  const sqsName = `e2e-sqs-${suffix}`;
  await createSourceOnAdminPage(page, { name: sqsName, team: 'commerce', kind: 'sqs', fields: sqsFields });
  await form.getByRole('link', { name: 'open it →' }).click();
  await expect(page).toHaveURL(new RegExp(`/sources/${sqsName}$`));
  const health = page.getByTestId('connector-health');
  await expect(health).toContainText('Reads http://127.0.0.1:9/000000000000/orders-dlq (sqs) · credentials set');
  await expect(health.getByTestId('trap-check')).toContainText('Broker settings: could not check');
  expect(await page.content()).not.toContain('e2e-secret-key-never-shown');
});
