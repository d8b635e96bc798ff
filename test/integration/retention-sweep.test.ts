// The retention sweeper: expires what is due, purges payloads, keeps tombstones, audits each batch,
// takes expired dead letters out of their clusters' open counts, and leaves running redrives alone.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DAY, HOUR, manualClock } from '@/lib/clock';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { resetDatabase } from '../support/db';
import { deadLetter, demoWorld } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');

describe('retention sweep', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('expires due dead letters in audited batches, except those a redrive still holds', async () => {
    const { sources } = await demoWorld();
    const old = new Date(T0.getTime() - 15 * DAY); // past the 14-day retention at T0
    const due = await recordDeadLetters(sources.orders, [
      ...[1, 2, 3, 4].map((n) => deadLetter({ deadAt: old, errorType: 'MemberNotFound', errorMessage: `member ${n} not found` })),
      ...[1, 2].map((n) => deadLetter({ deadAt: old, errorType: 'SchemaError', errorMessage: `unknown field "gift${n}"` })),
    ]);
    const [fresh] = await recordDeadLetters(sources.orders, [
      deadLetter({ deadAt: new Date(T0.getTime() - HOUR), errorType: 'SchemaError', errorMessage: 'unknown field "x"' }),
    ]);
    const [otherTeam] = await recordDeadLetters(sources.payments, [deadLetter({ deadAt: old })]);
    // The last due one is in a running redrive; the one before in a finished redrive.
    const held = due[5]!;
    const running = await db().redriveTask.create({ data: { sourceId: sources.orders.id, status: 'running', selection: { ids: [held.id] }, total: 1 } });
    await db().redriveItem.create({ data: { taskId: running.id, seq: 0, deadLetterId: BigInt(held.id), state: 'sent' } });
    const done = await db().redriveTask.create({ data: { sourceId: sources.orders.id, status: 'completed', selection: { ids: [due[4]!.id] }, total: 1 } });
    await db().redriveItem.create({ data: { taskId: done.id, seq: 0, deadLetterId: BigInt(due[4]!.id), state: 'sent' } });

    const result = await sweepExpired(manualClock(T0), { batchSize: 2 });
    expect(result).toEqual({ expired: 6, batches: 4 });

    const statusOf = async (id: string) => (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) } })).status;
    expect(await Promise.all(due.slice(0, 5).map((d) => statusOf(d.id)))).toEqual(Array(5).fill('expired'));
    expect(await statusOf(held.id)).toBe('open');
    expect(await statusOf(fresh!.id)).toBe('open');
    expect(await statusOf(otherTeam!.id)).toBe('expired');
    const tombstone = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(due[0]!.id) } });
    expect(tombstone).toMatchObject({ payload: null, errorType: 'MemberNotFound', decidedById: null });
    expect(await db().deadLetterSearch.findUnique({ where: { deadLetterId: tombstone.id } })).toMatchObject({ payloadText: null });
    expect(tombstone.payloadSha256).toHaveLength(64);

    const events = await db().auditEvent.findMany({ where: { action: 'deadletter.expire' }, orderBy: { id: 'asc' } });
    expect(events.map((e) => [e.sourceId, e.count, e.actorEmail, e.actorRole])).toEqual([
      [sources.orders.id, 2, 'retention', 'system'],
      [sources.orders.id, 2, 'retention', 'system'],
      [sources.orders.id, 1, 'retention', 'system'],
      [sources.payments.id, 1, 'retention', 'system'],
    ]);

    // Open counts: MemberNotFound 4 → 0; SchemaError 3 → 2 (the held one and the fresh one).
    const clusters = await db().cluster.findMany({ include: { sources: true }, orderBy: { count: 'desc' } });
    const byType = Object.fromEntries(
      clusters
        .filter((c) => c.sources.some((s) => s.sourceId === sources.orders.id))
        .map((c) => [c.errorType, [c.count, c.openCount, c.sources[0]!.openCount]]),
    );
    expect(byType).toEqual({ MemberNotFound: [4, 0, 0], SchemaError: [3, 2, 2] });

    expect(await sweepExpired(manualClock(T0))).toEqual({ expired: 0, batches: 0 });
  });
});
