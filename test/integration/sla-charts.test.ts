// The rollups behind the charts: exact per-minute counts (late arrivals included), all-time totals
// that never go backwards, depth snapshots, the age histogram and per-cluster sparklines.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { HOUR, MINUTE, manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { computeRollups } from '@/lib/rollups/compute-rollups';
import { sourceCharts } from '@/lib/rollups/source-charts';
import { deadLetter, demoWorld } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('rollups and charts', () => {
  freshDatabase();

  it('counts dead letters per minute and reason exactly, late arrivals included, and keeps monotonic totals', async () => {
    const { users, sources } = await demoWorld();
    const clock = manualClock(at(MINUTE));
    await recordDeadLetters(sources.orders, [
      ...[0, 10, 20].map((s) => deadLetter({ deadAt: at(s * 1000), reason: 'MaxReceives' })),
      ...[30, 40].map((s) => deadLetter({ deadAt: at(s * 1000), reason: 'Rejected' })),
    ]);
    await computeRollups(clock.now());
    const rollups = () => db().deadLetterRollup.findMany({ where: { sourceId: sources.orders.id }, orderBy: [{ minute: 'asc' }, { reason: 'asc' }] });
    expect((await rollups()).map((r) => [r.minute.toISOString(), r.reason, r.count])).toEqual([
      ['2026-03-02T09:00:00.000Z', 'MaxReceives', 3],
      ['2026-03-02T09:00:00.000Z', 'Rejected', 2],
    ]);

    // Ingested now, dead three hours ago (a partner forwarding a batch late).
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: at(-3 * HOUR), reason: 'Rejected' })]);
    await computeRollups(clock.now());
    await computeRollups(clock.now()); // re-scanning the same rows changes nothing
    expect((await rollups()).map((r) => [r.minute.toISOString(), r.reason, r.count])).toEqual([
      ['2026-03-02T06:00:00.000Z', 'Rejected', 1],
      ['2026-03-02T09:00:00.000Z', 'MaxReceives', 3],
      ['2026-03-02T09:00:00.000Z', 'Rejected', 2],
    ]);
    const stats = await db().sourceStats.findUniqueOrThrow({ where: { sourceId: sources.orders.id } });
    expect(stats.totals).toEqual({ MaxReceives: 3, Rejected: 3 });

    // Depth snapshot for the minute, from the age stats the alarm evaluation refreshes.
    await evaluateAlarms(clock);
    await computeRollups(clock.now());
    const charts = await sourceCharts(users.support, 'orders', { clock, range: '24h' });
    const sum = (reason: string) => charts.rate.reduce((n, p) => n + Number(p[reason]), 0);
    expect([sum('MaxReceives'), sum('Rejected'), sum('Expired')]).toEqual([3, 3, 0]);
    expect(charts.rate).toHaveLength(96);
    // The oldest died three hours before T0 and the clock reads a minute past it: to the second.
    expect(charts.depth.filter((p) => p.open !== null)).toEqual([{ t: '2026-03-02T09:00:00.000Z', open: 6, oldestAgeSeconds: 3 * 3600 + 60 }]);
    expect(charts.histogram).toEqual([
      { bucket: '< 1 h', count: 5 },
      { bucket: '1–6 h', count: 1 },
      { bucket: '6–24 h', count: 0 },
      { bucket: '1–3 d', count: 0 },
      { bucket: '3–7 d', count: 0 },
      { bucket: '7–14 d', count: 0 },
      { bucket: '≥ 14 d', count: 0 },
    ]);
    await expect(sourceCharts(users.financeLead, 'orders', { clock })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('charts a source’s busiest clusters with their last 24 hours in this source only', async () => {
    const { users, sources } = await demoWorld();
    const clock = manualClock(T0);
    const same = { errorType: 'TimeoutError', errorMessage: 'upstream timed out after 30000 ms' };
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: at(-30 * MINUTE), ...same }), deadLetter({ deadAt: at(-5 * HOUR), ...same })]);
    await recordDeadLetters(sources.payments, [deadLetter({ deadAt: at(-30 * MINUTE), ...same }), deadLetter({ deadAt: at(-30 * HOUR), ...same })]);
    const [cluster] = await db().cluster.findMany({ where: { errorType: 'TimeoutError' } });
    const charts = await sourceCharts(users.support, 'orders', { clock });
    expect(charts.clusters).toHaveLength(1);
    const [spark] = charts.clusters;
    expect(spark).toMatchObject({ clusterId: cluster!.id, template: cluster!.template, openCount: 2 });
    // Hours oldest first, the last one is the current hour: 08:00 and 04:00 are 1 and 5 hours back.
    expect(spark!.hourly).toHaveLength(24);
    expect([spark!.hourly[22], spark!.hourly[18], spark!.hourly.reduce((a, b) => a + b)]).toEqual([1, 1, 2]);
  });

  it('prunes hourly cluster counts past the longest view, keeping the kept totals', async () => {
    const { sources } = await demoWorld();
    const same = { errorType: 'TimeoutError', errorMessage: 'upstream timed out after 30000 ms' };
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: at(-40 * 24 * HOUR), ...same }), deadLetter({ deadAt: at(-HOUR), ...same })]);
    expect(await db().clusterHour.count()).toBe(2);
    await computeRollups(T0);
    const hours = await db().clusterHour.findMany();
    expect(hours.map((h) => h.hour.toISOString())).toEqual(['2026-03-02T08:00:00.000Z']);
    expect((await db().cluster.findFirstOrThrow({ where: { errorType: 'TimeoutError' } })).count).toBe(2);
  });
});
