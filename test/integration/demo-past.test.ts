// The demo's past (lib/demo/past, prisma/seed.ts seedDemo): played once into a fresh database, its
// audit events in time order under the demo seeder's name with a chain that verifies, an SLA board
// a lead can read (near deadline, breached, expiring undecided, a month of trend), a finished and a
// cancelled redrive, an alarm history, and nothing of it expired or expiring under the retention sweep.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '@/lib/auth';
import { verifyChain } from '@/lib/audit';
import { DAY, systemClock } from '@/lib/clock';
import { closeDb, db } from '@/lib/db';
import { DEMO_PAST_KEY } from '@/lib/demo/past';
import { closeQueues } from '@/lib/queue';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { sourceCharts } from '@/lib/rollups/source-charts';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { seed, seedDemo } from '@/prisma/seed';
import { resetDatabase } from '../support/db';

async function actorOf(email: string): Promise<Actor> {
  const u = await db().user.findUniqueOrThrow({ where: { email } });
  return { userId: u.id, email: u.email, role: u.role as Actor['role'], teamId: u.teamId, via: 'session' };
}

const counts = async () => ({
  deadLetters: await db().deadLetter.count(),
  audit: await db().auditEvent.count(),
  tasks: await db().redriveTask.count(),
  alarmEvents: await db().alarmEvent.count(),
});

afterAll(async () => {
  await closeQueues();
  await closeDb();
});

describe('the demo past, played into a fresh database', () => {
  let played: Awaited<ReturnType<typeof seedDemo>>;
  const now = new Date();

  beforeAll(async () => {
    await resetDatabase();
    played = await seedDemo(now);
  }, 120_000);

  it('is played once: a second seed adds nothing', async () => {
    expect(played.past).toBe('played');
    expect(played.deadLetters).toBeGreaterThan(300);
    const before = await counts();
    expect(await seedDemo()).toMatchObject({ created: 0, past: 'present' });
    expect(await counts()).toEqual(before);
  });

  it('writes its audit events in time order, weeks back, under the demo seeder, and the chain verifies', async () => {
    const events = await db().auditEvent.findMany({ orderBy: { id: 'asc' }, select: { at: true, actorEmail: true, action: true } });
    for (let i = 1; i < events.length; i++) expect(events[i]!.at.getTime()).toBeGreaterThanOrEqual(events[i - 1]!.at.getTime());
    expect(events.at(-1)!.at.getTime()).toBeLessThan(now.getTime());
    const decisions = events.filter((e) => e.actorEmail === 'demo-seeder' && e.action.startsWith('deadletter.'));
    expect(new Set(decisions.map((e) => e.action))).toEqual(new Set(['deadletter.archive', 'deadletter.discard']));
    expect(decisions.filter((e) => e.at.getTime() < now.getTime() - 14 * DAY).length).toBeGreaterThan(2);
    expect(events.map((e) => e.action)).toEqual(expect.arrayContaining(['redrive.start', 'redrive.cancel', 'redrive.finish']));
    const verify = await verifyChain();
    expect(verify).toMatchObject({ ok: true, checked: events.length });
  });

  it("gives the lead's SLA board near-deadline, breached and expiring rows and a month of trend", async () => {
    const board = await getSlaBoard(await actorOf('lead@triage.local'), { clock: systemClock, trendDays: 30 });
    const notifications = board.find((r) => r.source.name === 'notifications')!;
    expect(notifications.nearDeadline).toBeGreaterThan(0);
    expect(notifications.breached).toBeGreaterThan(0);
    expect(notifications.expireUndecided).toBeGreaterThan(0);
    expect(notifications.trend.filter((d) => d.open !== null).length).toBeGreaterThanOrEqual(29);
    // Orders are all decided: the live producer's poison starts today's backlog there.
    expect(board.find((r) => r.source.name === 'orders')!.openCount).toBe(0);
    const charts = await sourceCharts(await actorOf('lead@triage.local'), 'notifications', { range: '30d' });
    expect(charts.rate.filter((p) => Number(p.MaxReceives) > 0).length).toBeGreaterThan(10);
    expect(charts.histogram.find((b) => b.bucket === '≥ 14 d')!.count).toBeGreaterThan(0);
  });

  it('leaves a finished redrive, a cancelled one and an alarm history', async () => {
    const tasks = await db().redriveTask.findMany({
      select: { status: true, total: true, acknowledged: true, createdAt: true, source: { select: { name: true } } },
    });
    expect(tasks.map((t) => [t.source.name, t.status]).sort()).toEqual([
      ['notifications', 'cancelled'],
      ['payments', 'completed'],
    ]);
    const done = tasks.find((t) => t.status === 'completed')!;
    expect(done.acknowledged).toBe(done.total);
    expect(await db().deadLetter.count({ where: { source: { name: 'payments' }, status: 'open' } })).toBe(0);
    const transitions = await db().alarmEvent.findMany({ select: { kind: true, to: true, at: true } });
    for (const to of ['PENDING', 'ALARM', 'OK'] as const) expect(transitions.some((t) => t.to === to)).toBe(true);
    expect(transitions.some((t) => t.kind === 'rate' && t.to === 'ALARM' && t.at.getTime() < now.getTime() - 7 * DAY)).toBe(true);
  });

  it('keeps every demo source longer than its history, so the retention sweep expires none of it', async () => {
    const sources = await db().source.findMany({ select: { retentionSeconds: true } });
    for (const s of sources) expect(s.retentionSeconds * 1000).toBeGreaterThan(30 * DAY);
    expect(await sweepExpired(systemClock)).toEqual({ expired: 0, batches: 0 });
    expect(await db().deadLetter.count({ where: { status: 'expired' } })).toBe(0);
  });
});

describe('a database that has a trail already', () => {
  beforeAll(async () => {
    await resetDatabase();
    await seed();
  });

  it('gets no past: it would land behind what is on its trail', async () => {
    expect(await seedDemo()).toMatchObject({ created: 0, past: 'not fresh' });
    expect(await db().deadLetter.count()).toBe(0);
    expect(await db().setting.findUnique({ where: { key: DEMO_PAST_KEY } })).toBeNull();
  });
});
