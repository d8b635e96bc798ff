// Fault test: 10,000 dead letters redriven at 200/s while the redrive worker process is SIGKILLed
// twice. The task completes, nothing is lost, and the only duplicates are items that were in flight
// at a kill, each delivered again with the same original message id.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { startRedrive } from '@/lib/redrive';
import { completedTask, deliveriesPerMessage, park, spawnRedriveWorker, waitForDelivered, withReceiverAndWorkers, world } from './redrive-support';

const TOTAL = 10_000;

describe('redrive under worker crashes', () => {
  freshDatabase();

  it('completes with 0 lost and duplicates only from the batches in flight at each SIGKILL', { timeout: 240_000 }, async () => {
    await withReceiverAndWorkers(async (http, workers) => {
      const w = await world({ partnerUrl: http.url });
      const ids = await park(w.partner, TOTAL, { prefix: 'f' });
      const messageOf = new Map(ids.map((id, i) => [id, `f-${i}`]));

      const start = async () => {
        const worker = spawnRedriveWorker();
        workers.push(worker);
        await worker.ready;
        return worker;
      };
      let worker = await start();
      const task = await startRedrive({ ...SYSTEM, label: 'fault-test' }, { selection: { source: w.partner.name }, ratePerSecond: 200 });

      const inFlight: Set<string>[] = [];
      for (const killAt of [2_000, 6_000]) {
        await waitForDelivered(http, killAt);
        worker.process.kill('SIGKILL');
        await worker.exited;
        // Claimed (attempt made) but not marked: what may have gone out without being recorded.
        const claimed = await db().redriveItem.findMany({ where: { taskId: task.id, state: 'pending', attempts: { gt: 0 } }, select: { deadLetterId: true } });
        inFlight.push(new Set(claimed.map((c) => messageOf.get(c.deadLetterId.toString())!)));
        worker = await start();
      }

      const done = await completedTask(task.id, 150_000, 200);
      expect(done).toMatchObject({ total: TOTAL, sent: TOTAL, acknowledged: TOTAL, failed: 0, skipped: 0 });
      expect(await db().redriveItem.count({ where: { taskId: task.id, state: 'acknowledged' } })).toBe(TOTAL);

      // 0 lost: every message arrived, signed, with its own dead letter's message id.
      for (const d of http.deliveries) expect(d.signed).toBe(true);
      const counts = deliveriesPerMessage(http, messageOf);
      expect(counts.size).toBe(TOTAL);
      // Duplicates: only items in flight at a kill, at most once more each.
      const duplicated = [...counts].filter(([, n]) => n > 1);
      const allowed = new Set(inFlight.flatMap((s) => [...s]));
      for (const [messageId, n] of duplicated) {
        expect(n).toBe(2);
        expect(allowed.has(messageId)).toBe(true);
      }
      expect(duplicated.length).toBeLessThanOrEqual(inFlight.reduce((a, s) => a + s.size, 0));
      expect(await db().deadLetter.count({ where: { sourceId: w.partner.id, status: 'redriven' } })).toBe(TOTAL);
    });
  });
});
