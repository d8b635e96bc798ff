// The depth alarm walks OK → PENDING → ALARM → OK on an injected clock, and each transition reaches
// the owning team's webhook, signed, through the real BullMQ delivery worker (retrying a refusal).
import { describe, expect, it } from 'vitest';
import type { Worker } from 'bullmq';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmEvents, listAlarmStates } from '@/lib/alarms/list-alarms';
import { DAY, MINUTE, SECOND, manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhookSignature } from '@/lib/notifications/signature';
import { createWebhook, listDeliveries } from '@/lib/notifications/webhooks';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { webhookTestLifecycle } from './webhook-support';
import { deadLetter, demoWorld, webhookReceiver } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');

/** Resolves once the worker has completed n jobs (each delivery's outcome is then in the log). */
function completions(worker: Worker) {
  let n = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  worker.on('completed', () => {
    n++;
    for (const w of waiters.filter((w) => n >= w.n)) w.resolve();
  });
  return (want: number) => (n >= want ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n: want, resolve })));
}

describe('alarm notifications', () => {
  const webhooks = webhookTestLifecycle();

  it('notifies the team’s webhook of OK → PENDING → ALARM → OK, signed, retrying a refusal', async () => {
    const { users, sources } = await demoWorld();
    // The first attempt is refused: the delivery is retried with backoff and then accepted.
    const receiver = await webhookReceiver((attempt) => (attempt === 1 ? 503 : 200));
    const { secret } = await createWebhook(users.lead, { url: receiver.url });
    const financeHook = await createWebhook(users.financeLead, { url: receiver.url });
    const worker = webhooks.startWorker({ backoffBaseMs: 20 });
    const done = completions(worker);
    const clock = manualClock(T0);

    expect((await evaluateAlarms(clock)).transitions).toEqual([]);
    // Enqueued 14 days minus 3 minutes ago: the retention expires it 3 minutes after it died.
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: T0, enqueuedAt: new Date(T0.getTime() - 14 * DAY + 3 * MINUTE) })]);

    clock.set(new Date(T0.getTime() + 15 * SECOND));
    const pending = await evaluateAlarms(clock);
    expect(pending.transitions.map((t) => [t.sourceName, t.kind, t.from, t.to])).toEqual([['orders', 'depth', 'OK', 'PENDING']]);
    await receiver.waitFor(1);

    clock.set(new Date(T0.getTime() + 45 * SECOND)); // depth > 0 for 30 s only: still PENDING
    expect((await evaluateAlarms(clock)).transitions).toEqual([]);
    clock.set(new Date(T0.getTime() + 75 * SECOND));
    expect((await evaluateAlarms(clock)).transitions.map((t) => [t.kind, t.from, t.to])).toEqual([['depth', 'PENDING', 'ALARM']]);
    await receiver.waitFor(2);

    clock.set(new Date(T0.getTime() + 3 * MINUTE));
    expect(await sweepExpired(clock)).toMatchObject({ expired: 1 });
    expect((await evaluateAlarms(clock)).transitions.map((t) => [t.kind, t.from, t.to])).toEqual([['depth', 'ALARM', 'OK']]);
    await receiver.waitFor(3);

    const texts = receiver.received.map((r) => {
      const timestamp = Number(r.headers[TIMESTAMP_HEADER]);
      expect(verifyWebhookSignature(secret, timestamp, r.body, String(r.headers[SIGNATURE_HEADER]))).toBe(true);
      expect(verifyWebhookSignature(financeHook.secret, timestamp, r.body, String(r.headers[SIGNATURE_HEADER]))).toBe(false);
      const body = JSON.parse(r.body) as { text: string; blocks: unknown[] };
      expect(body.blocks.length).toBeGreaterThan(0);
      return body.text;
    });
    expect(texts).toEqual([
      expect.stringContaining('orders depth alarm OK → PENDING: 1 open dead letter'),
      expect.stringContaining('orders depth alarm PENDING → ALARM: 1 open dead letter'),
      '[OK] orders depth alarm ALARM → OK: 0 open dead letters',
    ]);
    expect(receiver.attempts()).toBe(4);
    await receiver.close();
    await done(3); // the worker has recorded each outcome

    const log = await listDeliveries(users.lead);
    expect(log.map((d) => [d.event, d.status, d.attempts])).toEqual([
      ['alarm.transition', 'delivered', 1],
      ['alarm.transition', 'delivered', 1],
      ['alarm.transition', 'delivered', 2],
    ]);
    // Another team's webhook hears nothing of orders.
    expect(await db().webhookDelivery.count({ where: { webhookId: financeHook.webhook.id } })).toBe(0);

    const history = await listAlarmEvents(users.lead);
    expect(history.map((e) => [e.sourceName, e.kind, e.from, e.to, e.at.toISOString()])).toEqual([
      ['orders', 'depth', 'ALARM', 'OK', '2026-03-02T09:03:00.000Z'],
      ['orders', 'depth', 'PENDING', 'ALARM', '2026-03-02T09:01:15.000Z'],
      ['orders', 'depth', 'OK', 'PENDING', '2026-03-02T09:00:15.000Z'],
    ]);
    expect(await listAlarmEvents(users.financeLead)).toEqual([]);
    const depth = (await listAlarmStates(users.lead)).find((a) => a.sourceName === 'orders' && a.kind === 'depth');
    expect(depth).toMatchObject({ state: 'OK', since: new Date(T0.getTime() + 3 * MINUTE), label: null });
  });
});
