// Nothing leaves the clock until it leaves Triage: dead letters a redrive task holds (here a task
// paused before it sent anything, as a canary that died would leave it) stay in every open, age,
// breach and expiry figure: the SLA board, the metrics and the alarms count them, their age runs on,
// they breach on time, and each one's page says which task holds it and in what state.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmStates } from '@/lib/alarms/list-alarms';
import { MINUTE, manualClock } from '@/lib/clock';
import { pg } from '@/lib/db';
import { getDeadLetter } from '@/lib/deadletters/get-dead-letter';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { pauseRedrive, resumeRedrive, startRedrive } from '@/lib/redrive';
import { computeAgeStats, refreshAgeStats } from '@/lib/sla/age-stats';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { alarmMessage } from '@/lib/notifications/alarm-message';
import { deadLetter, demoWorld } from './sla-fixtures';

/** A manual clock that reads now, and at(ms): the time ms after that. */
function clockFromNow() {
  const t0 = new Date();
  return { clock: manualClock(t0), at: (ms: number) => new Date(t0.getTime() + ms) };
}

describe('dead letters held by a redrive task', () => {
  freshDatabase();

  it('stay on the clock: counted, aged and breached on time on the board, in the metrics and the alarms', async () => {
    const { users, sources } = await demoWorld();
    const { clock, at } = clockFromNow();
    // A one-hour deadline; five dead letters 50 minutes old.
    await pg()`UPDATE sources SET age_deadline_seconds = 3600 WHERE id = ${sources.orders.id}::uuid`;
    const rows = await recordDeadLetters(
      sources.orders,
      Array.from({ length: 5 }, (_, i) => deadLetter({ deadAt: at(-50 * MINUTE + i * 1000), errorType: 'OrderSchemaError' })),
    );
    const held = rows.slice(0, 3).map((r) => r.id);
    const task = await startRedrive(users.lead, { selection: { ids: held }, ratePerSecond: 1, reason: 'gift field fixed?' }, clock);
    await pauseRedrive(users.lead, task.id, { reason: 'the canary died' });
    expect((await pg()<{ n: number }[]>`SELECT count(*)::int AS n FROM dead_letters WHERE status = 'redriving'`)[0]!.n).toBe(3);

    // The held ones count, as the one pass over every unresolved dead letter says.
    const later = at(15 * MINUTE);
    clock.set(later);
    const refreshed = await refreshAgeStats(later);
    const orders = refreshed.find((s) => s.sourceId === sources.orders.id)!;
    expect(orders).toMatchObject({ openCount: 5, breached: 5 });
    expect(orders.oldestDeadAt!.getTime()).toBe(at(-50 * MINUTE).getTime());
    const byId = (a: typeof refreshed) => [...a].sort((x, y) => x.sourceId.localeCompare(y.sourceId)).map((s) => ({ ...s, evaluatedAt: null }));
    expect(byId(refreshed)).toEqual(byId(await computeAgeStats(later)));

    const board = (await getSlaBoard(users.lead, { clock })).find((r) => r.source.name === 'orders')!;
    expect(board).toMatchObject({ openCount: 5, breached: 5 });
    expect(board.oldestAgeSeconds).toBe(65 * 60);

    const metrics = (await renderMetrics(users.admin, clock)).body;
    expect(metrics).toContain('triage_dead_letters_open{source="orders"} 5');
    expect(metrics).toContain('triage_dead_letters_breached{source="orders"} 5');

    await evaluateAlarms(clock);
    const alarms = await listAlarmStates(users.lead);
    expect(alarms.find((a) => a.sourceName === 'orders' && a.kind === 'age')).toMatchObject({ state: 'ALARM' });

    // A held dead letter's page says which task holds it, and in what state.
    const detail = await getDeadLetter(users.support, held[0]!);
    expect(detail).toMatchObject({
      status: 'redriving',
      heldBy: { taskId: task.id, status: 'paused', pausedReason: expect.stringContaining('the canary died') },
    });
    expect((await getDeadLetter(users.support, rows[4]!.id)).heldBy).toBeNull();
  });

  it("raise the source's redrive alarm while their task is paused, ALARM once paused past the set time", async () => {
    const { users, sources } = await demoWorld();
    const { clock, at } = clockFromNow();
    const rows = await recordDeadLetters(sources.orders, [deadLetter({ deadAt: at(-5 * MINUTE) }), deadLetter({ deadAt: at(-4 * MINUTE) })]);
    const task = await startRedrive(users.lead, { selection: { ids: rows.map((r) => r.id) }, ratePerSecond: 1, reason: 'after the fix' }, clock);
    const redrive = async () => (await listAlarmStates(users.lead)).find((a) => a.sourceName === 'orders' && a.kind === 'redrive');

    await evaluateAlarms(clock);
    expect((await redrive())?.state ?? 'OK').toBe('OK');
    // A reason is free text: what it quotes reaches the alarm and the team's webhook masked.
    await pauseRedrive(users.lead, task.id, { reason: 'the canary died, ask carol@bank.example' });
    const pending = await evaluateAlarms(clock);
    expect(await redrive()).toMatchObject({ state: 'PENDING', label: 'redrive paused', hint: expect.stringMatching(/resume it after the fix, or cancel it/) });
    const sent = pending.transitions.find((t) => t.kind === 'redrive')!;
    expect(JSON.stringify(alarmMessage(sent, 'http://localhost:3000'))).toContain('the canary died');
    expect(JSON.stringify(alarmMessage(sent, 'http://localhost:3000'))).not.toContain('carol@bank.example');
    expect(JSON.stringify(await redrive())).not.toContain('carol@bank.example');
    clock.set(at(31 * MINUTE));
    const r = await evaluateAlarms(clock);
    expect(r.transitions.find((t) => t.sourceName === 'orders' && t.kind === 'redrive')).toMatchObject({
      from: 'PENDING',
      to: 'ALARM',
      label: 'redrive paused',
    });

    await resumeRedrive(users.lead, task.id, { reason: 'handler v2 deployed' });
    await evaluateAlarms(clock);
    expect(await redrive()).toMatchObject({ state: 'OK' });
  });
});
