// Team webhooks: who manages them, the audit trail, the test send, the delivery log, and the
// reconciler that re-queues a delivery whose job never reached Redis.
import { describe, expect, it } from 'vitest';
import { db } from '@/lib/db';
import { auditTrail, whoDidWhat } from '../support/audit';
import { deliverWebhook, redeliverPending } from '@/lib/notifications/deliveries';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhookSignature } from '@/lib/notifications/signature';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, sendTestWebhook, updateWebhook } from '@/lib/notifications/webhooks';
import { demoWorld, webhookReceiver } from './sla-fixtures';
import { lastAttemptFailed, webhookTestLifecycle } from './webhook-support';

/** The demo world, a receiver answering `respond`, and the commerce lead's webhook to it. */
async function leadsWebhookTo(respond?: (n: number) => number) {
  const { users } = await demoWorld();
  const receiver = await webhookReceiver(respond);
  return { users, receiver, ...(await createWebhook(users.lead, { url: receiver.url })) };
}

/** A delivery row of an alarm transition, as the notifier writes it before it queues the job. */
const deliveryRow = (webhookId: string, text: string, createdAt?: Date) =>
  db().webhookDelivery.create({ data: { webhookId, event: 'alarm.transition', body: { text }, createdAt } });

describe('team webhooks', () => {
  const webhooks = webhookTestLifecycle();

  it('a lead manages their team’s webhooks, audited; support and other teams cannot', async () => {
    const { users, teams } = await demoWorld();
    const { webhook, secret } = await createWebhook(users.lead, { url: 'https://hooks.slack.example/T1/B2' });
    expect(webhook).toMatchObject({ teamId: teams.commerce.id, enabled: true });
    expect(secret).toMatch(/^whsec_/);
    await expect(createWebhook(users.support, { url: 'https://x.example' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createWebhook(users.lead, { url: 'https://x.example', team: 'finance' })).rejects.toMatchObject({ code: 'unprocessable' });
    await expect(updateWebhook(users.financeLead, webhook.id, { enabled: false })).rejects.toMatchObject({ code: 'not_found' });
    await expect(createWebhook(users.admin, { url: 'https://x.example' })).rejects.toMatchObject({ code: 'unprocessable' });
    const forFinance = await createWebhook(users.admin, { url: 'https://finance.example/hook', team: 'finance' });
    // Not to internal addresses (cloud metadata, private networks) unless an operator allows them.
    await expect(createWebhook(users.lead, { url: 'http://169.254.169.254/latest/meta-data/' })).rejects.toMatchObject({
      code: 'unprocessable',
      details: { field: 'url' },
      message: expect.stringContaining('internal address'),
    });
    await expect(updateWebhook(users.lead, webhook.id, { url: 'http://10.0.0.5:8080/hook' })).rejects.toMatchObject({ code: 'unprocessable' });

    expect((await listWebhooks(users.lead)).map((w) => w.url)).toEqual(['https://hooks.slack.example/T1/B2']);
    expect((await listWebhooks(users.admin)).length).toBe(2);
    expect(JSON.stringify(await listWebhooks(users.lead))).not.toContain(secret);

    await updateWebhook(users.lead, webhook.id, { enabled: false });
    await deleteWebhook(users.admin, forFinance.webhook.id);
    const trail = await auditTrail({ action: { startsWith: 'webhook.' } });
    expect(whoDidWhat(trail)).toEqual([
      ['webhook.create', 'lead@triage.local'],
      ['webhook.create', 'admin@triage.local'],
      ['webhook.update', 'lead@triage.local'],
      ['webhook.delete', 'admin@triage.local'],
    ]);
    expect(trail[2]).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
  });

  it('a test send reaches the receiver signed and shows in the delivery log', async () => {
    const { users, receiver, webhook, secret } = await leadsWebhookTo();
    const worker = webhooks.startWorker({ backoffBaseMs: 20 });
    const delivered = new Promise<void>((resolve) => worker.on('completed', () => resolve()));
    await sendTestWebhook(users.lead, webhook.id);
    await receiver.waitFor(1);
    await delivered;
    const [r] = receiver.received;
    expect(verifyWebhookSignature(secret, Number(r!.headers[TIMESTAMP_HEADER]), r!.body, String(r!.headers[SIGNATURE_HEADER]))).toBe(true);
    expect(r!.headers['x-triage-event']).toBe('webhook.test');
    expect((JSON.parse(r!.body) as { text: string }).text).toContain('sent by lead@triage.local');
    const [log] = await listDeliveries(users.lead);
    expect(log).toMatchObject({ event: 'webhook.test', status: 'delivered', attempts: 1, responseStatus: 200 });
    expect(await listDeliveries(users.financeLead)).toEqual([]);
    // One webhook's log: another team's webhook, or an id that is none, is not found (never the whole log).
    await expect(listDeliveries(users.financeLead, { webhookId: webhook.id })).rejects.toMatchObject({ code: 'not_found' });
    await expect(listDeliveries(users.lead, { webhookId: 'not-a-uuid' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await listDeliveries(users.lead, { webhookId: webhook.id })).toHaveLength(1);
    await receiver.close();
  });

  it('re-queues a delivery whose job was lost, and records a failure after the last attempt', async () => {
    const { receiver, webhook } = await leadsWebhookTo(() => 500);
    // A delivery row written, its job never queued (Redis was away at the time).
    const lost = await deliveryRow(webhook.id, 'lost', new Date(Date.now() - 5 * 60_000));
    const worker = webhooks.startWorker({ backoffBaseMs: 1 });
    const failedForGood = lastAttemptFailed(worker);
    expect(await redeliverPending(new Date())).toEqual({ requeued: 1, abandoned: 0 });
    await failedForGood;
    const row = await db().webhookDelivery.findUniqueOrThrow({ where: { id: lost.id } });
    expect(row).toMatchObject({ status: 'failed', attempts: 8, responseStatus: 500, error: 'HTTP 500' });
    expect(receiver.attempts()).toBe(8);
    expect(await redeliverPending(new Date())).toEqual({ requeued: 0, abandoned: 0 });
    await receiver.close();
  });

  it('a job queued before the database was restored never sends the row that reuses its id', async () => {
    const { receiver, webhook } = await leadsWebhookTo(() => 200);
    const row = await deliveryRow(webhook.id, 'new row');
    // The job a restored database's older row of the same id left in Redis: its creation time differs.
    expect(await deliverWebhook(row.id, { final: false, createdAt: row.createdAt.getTime() - 60_000 })).toBe('skipped');
    expect(receiver.attempts()).toBe(0);
    expect(await db().webhookDelivery.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ status: 'pending' });
    expect(await deliverWebhook(row.id, { final: false, createdAt: row.createdAt.getTime() })).toBe('delivered');
    expect(receiver.attempts()).toBe(1);
    await receiver.close();
  });

  it('refuses at send time a webhook whose URL reaches an internal address, and logs why', async () => {
    const { users } = await demoWorld();
    const { webhook } = await createWebhook(users.lead, { url: 'https://hooks.slack.example/T1/B2' });
    // Saved before the guard existed, or a name re-pointed since: the send checks again.
    await db().webhook.update({ where: { id: webhook.id }, data: { url: 'http://169.254.169.254/latest/meta-data/' } });
    const worker = webhooks.startWorker({ backoffBaseMs: 1 });
    const failedForGood = lastAttemptFailed(worker);
    await sendTestWebhook(users.lead, webhook.id);
    await failedForGood;
    const [log] = await listDeliveries(users.lead);
    expect(log).toMatchObject({ status: 'failed', responseStatus: null, error: expect.stringContaining('169.254.169.254 is an internal address') });
  });
});
