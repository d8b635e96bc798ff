// The redrive runner's claims (no item sent twice, memory bounded): a task whose
// destination cannot be built fails with a reason instead of being retried forever, and a claim
// holds a bounded number of payload bytes, not a number of rows.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import { destinationFor } from '@/lib/redrive/destinations';
import { runRedriveTask } from '@/lib/redrive/run-task';
import { park, receiver, world, type World } from './redrive-support';

/** `n` dead letters parked on `source` (message ids `<prefix>-<i>`) and a task the system starts to redrive them all. */
async function parkedAndRedriven(source: World['orders'], n: number, prefix: string, ratePerSecond: number) {
  const ids = await park(source, n, { prefix });
  return { ids, task: await startRedrive({ ...SYSTEM, label: 'test' }, { selection: { source: source.name }, ratePerSecond }) };
}

describe('redrive claims', () => {
  freshDatabase();

  it('fails a task whose redrive URL was cleared, with the reason, its dead letters open again, and takes it up no more', { timeout: 60_000 }, async () => {
    const w = await world();
    const { task } = await parkedAndRedriven(w.partner, 5, 'nourl', 100);
    await db().source.update({ where: { id: w.partner.id }, data: { redriveUrl: null } });

    expect(await runRedriveTask(task.id)).toBe('failed');
    const t = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(t.status).toBe('failed');
    expect(t.pausedReason).toContain('has no redrive URL');
    expect(t.finishedAt).not.toBeNull();
    expect(await db().deadLetter.count({ where: { sourceId: w.partner.id, status: 'open' } })).toBe(5);
    const fail = await db().auditEvent.findFirstOrThrow({ where: { targetId: task.id, action: 'redrive.fail' } });
    expect(fail.reason).toContain('has no redrive URL');

    // The supervisor does not try it again every 2 s: it is not runnable any more.
    const supervisor = await startRedriveSupervisor({ reconcileMs: 100 });
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect(supervisor.running()).toEqual([]);
    } finally {
      await supervisor.stop();
    }
    expect(await db().auditEvent.count({ where: { targetId: task.id, action: 'redrive.fail' } })).toBe(1);
  });

  it('claims batches bounded by payload bytes, not rows: 40 dead letters of 1 MiB go out 8 MiB at a time at most', { timeout: 120_000 }, async () => {
    const MiB = 1 << 20;
    // The runner's documented bound on the payload bytes of one claim (lib/redrive/run-task.ts).
    const BOUND = 8 * MiB;
    const http = await receiver();
    try {
      const w = await world({ partnerUrl: http.url });
      await park(w.partner, 40, { prefix: 'big' });
      await db().$executeRaw`UPDATE dead_letters SET payload = decode(repeat('ab', ${MiB}::int), 'hex') WHERE source_id = ${w.partner.id}::uuid`;
      const task = await startRedrive({ ...SYSTEM, label: 'test' }, { selection: { source: w.partner.name }, ratePerSecond: 1_000 });
      const batches: { items: number; bytes: number }[] = [];
      const end = await runRedriveTask(task.id, {
        destinationFor: (source, opts) => {
          const real = destinationFor(source, opts);
          return {
            ...real,
            deliver: (batch, signal) => {
              batches.push({ items: batch.length, bytes: batch.reduce((a, m) => a + m.payload.byteLength, 0) });
              return real.deliver(batch, signal);
            },
          };
        },
      });
      expect(end).toBe('completed');
      expect(batches.reduce((a, b) => a + b.items, 0)).toBe(40);
      expect(new Set(http.deliveries.map((d) => d.messageId)).size).toBe(40);
      for (const b of batches) expect(b.bytes).toBeLessThanOrEqual(BOUND);
      // Bounded, not one at a time: a claim fills up to the bound.
      expect(Math.max(...batches.map((b) => b.items))).toBe(8);
    } finally {
      await http.close();
    }
  });

  it('two runners of one task (as after the advisory-lock session drops in a Postgres restart) never send the same item', { timeout: 120_000 }, async () => {
    const http = await receiver();
    try {
      const w = await world({ partnerUrl: http.url });
      const { task, ids } = await parkedAndRedriven(w.partner, 600, 'two', 300);
      // The supervisor's advisory lock is what normally keeps a second runner out; here it is gone.
      const ends = await Promise.all([runRedriveTask(task.id), runRedriveTask(task.id)]);
      expect(ends).toContain('completed');
      const sends = new Map<string, number>();
      for (const d of http.deliveries) sends.set(d.messageId, (sends.get(d.messageId) ?? 0) + 1);
      expect(sends.size).toBe(ids.length);
      expect([...sends].filter(([, n]) => n > 1).slice(0, 5)).toEqual([]);
      expect(await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ status: 'completed', sent: 600, acknowledged: 600 });
    } finally {
      await http.close();
    }
  });

  it('keeps the pace with a destination slower than a batch: the next batches go while one is still being delivered', { timeout: 120_000 }, async () => {
    const w = await world();
    const { task } = await parkedAndRedriven(w.orders, 600, 'slow', 300);
    // Each delivery takes 250 ms (an HTTP call per message, a far broker): a runner that waits for one
    // batch before it claims the next sends 15 every 250 ms at most, 60/s of the 300/s asked.
    let inFlight = 0;
    let mostAtOnce = 0;
    const sentAt: number[] = [];
    const end = await runRedriveTask(task.id, {
      destination: {
        description: 'a slow queue',
        failures: 'infrastructure',
        async deliver(batch) {
          mostAtOnce = Math.max(mostAtOnce, ++inFlight);
          for (const _ of batch) sentAt.push(Date.now());
          await new Promise((r) => setTimeout(r, 250));
          inFlight--;
          return batch.map(() => ({ ok: true as const, acknowledged: true }));
        },
      },
    });
    expect(end).toBe('completed');
    expect(sentAt).toHaveLength(600);
    expect(mostAtOnce).toBeGreaterThanOrEqual(2);
    // Overlapping batches never carry the pace over the rate: no 1-second window above it by more than 10%.
    sentAt.sort((a, b) => a - b);
    for (let i = 0, j = 0; i < sentAt.length; i++) {
      while (sentAt[j]! <= sentAt[i]! - 1_000) j++;
      expect(i - j + 1).toBeLessThanOrEqual(330);
    }
  });
  it('keeps a one-at-a-time destination in order after an outage: what failed goes before what was claimed after it', { timeout: 120_000 }, async () => {
    const w = await world();
    const { task } = await parkedAndRedriven(w.orders, 40, 'fifo', 20);
    // An SQS FIFO queue takes one batch at a time so that its groups keep their order; its first
    // delivery meets the queue away (the batch stays pending and goes again after the backoff).
    const delivered: bigint[] = [];
    let calls = 0;
    const end = await runRedriveTask(task.id, {
      destination: {
        description: 'a FIFO queue',
        failures: 'infrastructure',
        maxInFlight: 1,
        async deliver(batch) {
          if (++calls === 1) return batch.map(() => ({ ok: false as const, failure: 'infrastructure' as const, error: 'queue away' }));
          for (const item of batch) delivered.push(item.deadLetterId);
          return batch.map(() => ({ ok: true as const, acknowledged: true }));
        },
      },
    });
    expect(end).toBe('completed');
    const inSeqOrder = await db().redriveItem.findMany({ where: { taskId: task.id }, orderBy: { seq: 'asc' }, select: { deadLetterId: true } });
    expect(delivered).toEqual(inSeqOrder.map((i) => i.deadLetterId));
  });
});
