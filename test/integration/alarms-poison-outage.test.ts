// Poison or outage from what the errors say, from the first dead letter (seed 004 §9): a slow outage
// (503s, fewer than a wave) on notifications and one poison message on orders. The alarms, their
// webhooks and the inbox say outage and poison; the outage's advice never says to redrive while the
// 503s keep arriving, and says when it may once they stopped.
import { describe, expect, it } from 'vitest';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmStates } from '@/lib/alarms/list-alarms';
import { getCluster } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { MINUTE, SECOND, manualClock } from '@/lib/clock';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { createWebhook } from '@/lib/notifications/webhooks';
import { webhookTestLifecycle } from './webhook-support';
import { deadLetter, demoWorld, webhookReceiver } from './sla-fixtures';

const T0 = new Date('2026-03-02T03:01:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const outage503 = (i: number) =>
  deadLetter({ deadAt: at(i * 40 * SECOND), errorType: 'MemberServiceError', errorMessage: `member service answered 503 for member ${1000 + i}` });

describe('poison or outage, from what the errors say', () => {
  const webhooks = webhookTestLifecycle();

  it('says outage for a slow stream of 503s and poison for one bad message, in the alarms, the inbox and the webhooks', async () => {
    const { users, sources } = await demoWorld();
    const receiver = await webhookReceiver();
    await createWebhook(users.lead, { url: receiver.url });
    webhooks.startWorker({ backoffBaseMs: 20 });
    const clock = manualClock(T0);

    // The first dead letter of each: nothing about volume yet.
    await recordDeadLetters(sources.notifications, [outage503(0)]);
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: T0, errorType: 'SyntaxError', errorMessage: 'Unexpected token } in JSON at position 112' })]);
    clock.set(at(15 * SECOND));
    const first = await evaluateAlarms(clock);
    expect(first.transitions.map((t) => [t.sourceName, t.kind, t.to, t.label]).sort()).toEqual([
      ['notifications', 'depth', 'PENDING', 'outage'],
      ['orders', 'depth', 'PENDING', 'poison'],
    ]);
    const outageHint = first.transitions.find((t) => t.sourceName === 'notifications')!.hint!;
    expect(outageHint).toMatch(/check the downstream/);
    expect(outageHint).toMatch(/stop the bleeding/);
    expect(outageHint).toMatch(/capture evidence/);
    expect(outageHint).not.toMatch(/redrive/i);
    expect(first.transitions.find((t) => t.sourceName === 'orders')!.hint).toMatch(/fix the producer or the consumer.*redrive/);

    // A slow outage: one 503 every 40 s for 20 minutes, 7 or 8 a rate window, never a wave.
    await recordDeadLetters(
      sources.notifications,
      Array.from({ length: 29 }, (_, i) => outage503(i + 1)),
    );
    const hints: string[] = [];
    for (let s = 75; s <= 20 * 60; s += 75) {
      clock.set(at(s * SECOND));
      const r = await evaluateAlarms(clock);
      hints.push(...r.transitions.filter((t) => t.sourceName === 'notifications' && t.hint).map((t) => t.hint!));
      const states = await listAlarmStates(users.lead);
      for (const st of states.filter((x) => x.sourceName === 'notifications' && x.state !== 'OK')) {
        expect(st.label).toBe('outage');
        hints.push(st.hint!);
      }
      expect(states.find((x) => x.sourceName === 'notifications' && x.kind === 'rate')!.state).not.toBe('ALARM');
    }
    expect(hints.length).toBeGreaterThan(0);
    for (const h of hints) expect(h).not.toMatch(/redrive/i);
    const states = await listAlarmStates(users.lead);
    expect(states.filter((s) => s.state === 'ALARM').map((s) => [s.sourceName, s.kind, s.label])).toEqual([
      ['notifications', 'depth', 'outage'],
      ['orders', 'depth', 'poison'],
    ]);

    // The inbox says the same of each cluster.
    const inbox = async () =>
      (await listClusters(users.lead, { state: 'open' }, null, { clock })).clusters
        .map((c) => [c.sources.map((x) => x.name).join(), c.errorClass, c.verdict])
        .sort();
    expect(await inbox()).toEqual([
      ['notifications', 'transient', 'outage'],
      ['orders', 'permanent', 'poison'],
    ]);
    // And the cluster's own page.
    const outageCluster = (await listClusters(users.lead, { source: ['notifications'] }, null, { clock })).clusters[0]!.id;
    expect(await getCluster(users.lead, outageCluster, { clock })).toMatchObject({ errorClass: 'transient', verdict: 'outage' });

    // The webhooks carry the same words: no redrive in any of the outage's.
    await receiver.waitFor(4);
    const texts = receiver.received.map((r) => (JSON.parse(r.body) as { text: string }).text);
    const outageTexts = texts.filter((t) => t.includes('notifications'));
    expect(outageTexts.length).toBe(2);
    for (const t of outageTexts) {
      expect(t).toContain('· outage: check the downstream');
      expect(t).not.toMatch(/redrive/i);
    }
    expect(texts.filter((t) => t.includes('orders')).every((t) => t.includes('· poison: '))).toBe(true);

    // A rate window without a 503 is not enough (a slow outage skips some); after two, and only then,
    // the advice says when to redrive.
    clock.set(at(20 * MINUTE + 6 * MINUTE));
    await evaluateAlarms(clock);
    expect((await listAlarmStates(users.lead)).find((s) => s.sourceName === 'notifications' && s.kind === 'depth')!.label).toBe('outage');
    clock.set(at(20 * MINUTE + 11 * MINUTE));
    await evaluateAlarms(clock);
    const after = (await listAlarmStates(users.lead)).find((s) => s.sourceName === 'notifications' && s.kind === 'depth')!;
    expect(after.label).toBe('outage, errors stopped');
    expect(after.hint).toMatch(/healthy.*redrive/);
    expect(await inbox()).toEqual([
      ['notifications', 'transient', 'outage, errors stopped'],
      ['orders', 'permanent', 'poison'],
    ]);
    await receiver.close();
  });
});
