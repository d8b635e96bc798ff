// A dead letter's life against its deadlines, with the clock injected: near-deadline, breach and
// expiry arrive at the right moment on the dead-letter clock and on the original-enqueue clock.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, MINUTE, manualClock } from '@/lib/clock';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { refreshAgeStats } from '@/lib/sla/age-stats';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { resetDatabase } from '../support/db';
import { deadLetter, demoWorld } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');

describe('SLA board', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('shows near-deadline, breach and expiry at the right times on both clocks', async () => {
    const { users, sources } = await demoWorld();
    // Defaults: retention 14 d on the stricter clock, age deadline 7 d since dead-lettered.
    const clock = manualClock(T0);
    const [fifoLike, standard] = await recordDeadLetters(sources.orders, [
      // Enqueued an hour before it died: expires 14 d after enqueue, well after its deadline.
      deadLetter({ messageId: 'fifo-like', deadAt: T0, enqueuedAt: new Date(T0.getTime() - HOUR) }),
      // Spent 10 days failing before it died (the SQS standard-queue trap): 4 days left to live.
      deadLetter({ messageId: 'standard', deadAt: T0, enqueuedAt: new Date(T0.getTime() - 10 * DAY) }),
    ]);

    const at = async (offsetMs: number) => {
      clock.set(new Date(T0.getTime() + offsetMs));
      await sweepExpired(clock);
      await refreshAgeStats(clock.now());
      const board = await getSlaBoard(users.lead, { clock });
      const orders = board.find((r) => r.source.name === 'orders')!;
      expect(orders.live).toBe(false);
      return orders;
    };

    let row = await at(HOUR);
    expect(row).toMatchObject({ openCount: 2, oldestAgeSeconds: 3600, oldestEnqueuedAgeSeconds: 10 * 86400 + 3600, nearDeadline: 0, breached: 0 });
    expect(row.expireUndecided).toBe(1); // the standard-queue one expires before its deadline
    expect(row.expiringSoon).toBe(0);
    expect(row.nextExpiryAt).toEqual(new Date(T0.getTime() + 4 * DAY));

    row = await at(DAY + MINUTE); // under 3 days to its expiry: the board warns
    expect(row.expiringSoon).toBe(1);

    row = await at(4 * DAY - MINUTE);
    expect(row.openCount).toBe(2);
    row = await at(4 * DAY);
    expect(row.openCount).toBe(1);
    expect(row.oldestEnqueuedAgeSeconds).toBe(4 * 86400 + 3600);
    const expired = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(standard!.id) } });
    expect(expired).toMatchObject({ status: 'expired', payload: null });
    expect(await db().deadLetterSearch.findUnique({ where: { deadLetterId: expired.id } })).toMatchObject({ payloadText: null });
    expect(expired.payloadSha256).toHaveLength(64);

    row = await at(6 * DAY - MINUTE);
    expect(row).toMatchObject({ nearDeadline: 0, breached: 0 });
    row = await at(6 * DAY + MINUTE);
    expect(row).toMatchObject({ nearDeadline: 1, breached: 0 });
    row = await at(7 * DAY - MINUTE);
    expect(row).toMatchObject({ nearDeadline: 1, breached: 0 });
    row = await at(7 * DAY);
    expect(row).toMatchObject({ nearDeadline: 0, breached: 1 });

    row = await at(14 * DAY - HOUR - MINUTE);
    expect(row.openCount).toBe(1);
    row = await at(14 * DAY - HOUR);
    expect(row).toMatchObject({ openCount: 0, breached: 0, oldestAgeSeconds: null });
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(fifoLike!.id) } })).status).toBe('expired');
  });

  it('computes on the spot what the maintenance worker has not refreshed, with the same numbers', async () => {
    const { users, sources } = await demoWorld();
    const clock = manualClock(T0);
    await recordDeadLetters(sources.orders, [
      deadLetter({ deadAt: new Date(T0.getTime() - 6.5 * DAY) }),
      deadLetter({ deadAt: new Date(T0.getTime() - 8 * DAY) }),
    ]);
    const live = (await getSlaBoard(users.lead, { clock })).find((r) => r.source.name === 'orders')!;
    expect(live.live).toBe(true);
    await refreshAgeStats(clock.now());
    const stored = (await getSlaBoard(users.lead, { clock })).find((r) => r.source.name === 'orders')!;
    expect(stored.live).toBe(false);
    const pick = ({ openCount, oldestAgeSeconds, nearDeadline, breached, expireUndecided }: typeof live) => ({
      openCount,
      oldestAgeSeconds,
      nearDeadline,
      breached,
      expireUndecided,
    });
    expect(pick(stored)).toEqual(pick(live));
    expect(pick(live)).toEqual({ openCount: 2, oldestAgeSeconds: 8 * 86400, nearDeadline: 1, breached: 1, expireUndecided: 0 });
  });

  it('shows a lead their team’s sources only, and an auditor every source', async () => {
    const { users } = await demoWorld();
    const names = async (actor: typeof users.lead) => (await getSlaBoard(actor)).map((r) => r.source.name);
    expect(await names(users.lead)).toEqual(['notifications', 'orders']);
    expect(await names(users.financeLead)).toEqual(['payments']);
    expect(await names(users.auditor)).toEqual(['notifications', 'orders', 'payments']);
  });
});
