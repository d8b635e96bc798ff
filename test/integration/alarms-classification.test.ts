// The runbook's first question, answered by the alarms: the demo's payments outage (a gateway
// answering 503) is an outage, from what its errors say; the orders poison messages (a trickle of
// parse, schema and validation errors) are poison. Also the age alarm against the deadline.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmStates, type AlarmView } from '@/lib/alarms/list-alarms';
import { HINTS } from '@/lib/model/alarm-rules';
import { DAY, HOUR, MINUTE, SECOND, manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { deadLetter, demoWorld } from './sla-fixtures';

const T0 = new Date('2026-03-02T03:01:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/** Each alarm's kind, state and label, as the runbook reads them. */
const verdicts = (states: AlarmView[]) => states.map((s) => [s.kind, s.state, s.label]);

/** `n` dead letters of one type, one every `everyMs` from T0, the i-th saying `message(i)`. */
const arrivals = (n: number, everyMs: number, errorType: string, message: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => deadLetter({ deadAt: at(i * everyMs), errorType, errorMessage: message(i) }));

describe('alarm classification', () => {
  freshDatabase();

  it('labels a payments wave of 503s an outage: check the downstream, no redrive while they arrive', async () => {
    const { users, sources } = await demoWorld();
    const clock = manualClock(T0);
    // 300 captures failing against a gateway answering 503 over three minutes, plus a little noise.
    const wave = arrivals(300, 600, 'GatewayError', (i) => `payment gateway returned 503 for capture cap_${100000 + i}`);
    const noise = [deadLetter({ deadAt: at(90 * SECOND), errorType: 'ValidationError', errorMessage: 'amount must be positive' })];
    await recordDeadLetters(sources.payments, [...wave, ...noise]);

    clock.set(at(3 * MINUTE));
    const r = await evaluateAlarms(clock);
    const rate = r.transitions.find((t) => t.sourceName === 'payments' && t.kind === 'rate')!;
    expect(rate).toMatchObject({ from: 'OK', to: 'ALARM', label: 'outage', hint: HINTS.outage });
    expect(r.transitions.find((t) => t.kind === 'depth')).toMatchObject({ to: 'PENDING', label: 'outage' });

    clock.set(at(4 * MINUTE + 15 * SECOND));
    await evaluateAlarms(clock);
    const states = await listAlarmStates(users.financeLead);
    expect(states.filter((s) => s.state === 'ALARM').map((s) => [s.sourceName, s.kind, s.label, s.hint])).toEqual([
      ['payments', 'depth', 'outage', HINTS.outage],
      ['payments', 'rate', 'outage', HINTS.outage],
    ]);
    expect(states.find((s) => s.kind === 'rate')!.detail).toMatchObject({
      dominantShare: 300 / 301,
      errorClasses: { transient: 300, permanent: 1, unknown: 0 },
    });

    // The wave is over: the rate alarm clears; the backlog stays in ALARM, an outage whose errors stopped.
    clock.set(at(2 * HOUR));
    await evaluateAlarms(clock);
    const later = await listAlarmStates(users.financeLead);
    expect(verdicts(later)).toEqual([
      ['depth', 'ALARM', 'outage, errors stopped'],
      ['age', 'OK', null],
      ['rate', 'OK', null],
    ]);
    // Commerce sees none of it.
    expect((await listAlarmStates(users.lead)).every((s) => s.state === 'OK')).toBe(true);
  });

  it('holds a busy source’s rate alarm to that source’s own thresholds', async () => {
    const { users, sources } = await demoWorld();
    const clock = manualClock(T0);
    // 60 in three minutes: a wave by the defaults (50), this source's normal traffic by its own.
    const steady = arrivals(60, 3 * SECOND, 'TimeoutError', (i) => `slow reply ${i}`);
    await recordDeadLetters(sources.payments, steady);
    await db().source.update({ where: { id: sources.payments.id }, data: { alarmRatePending: 100, alarmRateAlarm: 400 } });
    clock.set(at(3 * MINUTE));
    await evaluateAlarms(clock);
    const rate = (await listAlarmStates(users.financeLead)).find((s) => s.sourceName === 'payments' && s.kind === 'rate')!;
    expect(rate).toMatchObject({ state: 'OK' });
    expect(rate.detail).toMatchObject({ value: 60, threshold: '100 / 400 in 5 min' });
    // The same arrivals on the defaults would be an ALARM.
    await db().source.update({ where: { id: sources.payments.id }, data: { alarmRatePending: 10, alarmRateAlarm: 50 } });
    clock.set(at(3 * MINUTE + 15 * SECOND));
    await evaluateAlarms(clock);
    expect((await listAlarmStates(users.financeLead)).find((s) => s.sourceName === 'payments' && s.kind === 'rate')).toMatchObject({ state: 'ALARM' });
  });

  it('labels a trickle of parse, schema and validation errors in orders poison', async () => {
    const { users, sources } = await demoWorld();
    const clock = manualClock(T0);
    const errors = [
      ['SchemaError', 'unknown field "gift"'],
      ['SyntaxError', 'Unexpected token } in JSON at position 112'],
      ['SchemaError', 'unknown field "gift"'],
      ['ValidationError', 'quantity must be an integer, got "two"'],
      ['UnknownMessageType', 'no handler for order.gift_wrapped'],
      ['SchemaError', 'unknown field "gift"'],
    ] as const;
    await recordDeadLetters(
      sources.orders,
      errors.map(([errorType, errorMessage], i) => deadLetter({ deadAt: at(i * 7 * MINUTE), errorType, errorMessage })),
    );
    clock.set(at(40 * MINUTE));
    await evaluateAlarms(clock);
    clock.set(at(41 * MINUTE + 15 * SECOND));
    await evaluateAlarms(clock);
    const orders = (await listAlarmStates(users.lead)).filter((s) => s.sourceName === 'orders');
    expect(verdicts(orders)).toEqual([
      ['depth', 'ALARM', 'poison'],
      ['age', 'OK', null],
      ['rate', 'OK', null],
    ]);
    expect(orders[0]!.hint).toBe(HINTS.poison);
  });

  it('raises the age alarm a day before the deadline and at it', async () => {
    const { users, sources } = await demoWorld();
    await recordDeadLetters(sources.notifications, [deadLetter({ deadAt: T0 })]);
    const clock = manualClock(at(6 * DAY - MINUTE));
    const age = async () => (await listAlarmStates(users.lead)).find((s) => s.sourceName === 'notifications' && s.kind === 'age')!.state;
    await evaluateAlarms(clock);
    expect(await age()).toBe('OK');
    clock.set(at(6 * DAY));
    await evaluateAlarms(clock);
    expect(await age()).toBe('PENDING');
    clock.set(at(7 * DAY));
    await evaluateAlarms(clock);
    expect(await age()).toBe('ALARM');
  });
});
