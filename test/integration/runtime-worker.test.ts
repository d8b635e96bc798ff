// workers/consumer.ts as its own process: ready, picks up a source created after it started,
// and stops cleanly on SIGTERM.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createSource } from '@/lib/sources/create-source';
import { closeDb, db } from '@/lib/db';
import { produceDemoBatch } from '@/lib/demo';
import { closeQueues } from '@/lib/queue';
import { resetDatabase } from '../support/db';
import { dropTestQueues, inFlight, spawnConsumer, waitFor } from './runtime-support';
import { killWorkerChildren } from '../support/worker-child';

describe('consumer worker process', () => {
  beforeEach(resetDatabase);
  afterEach(killWorkerChildren);
  afterAll(async () => {
    await dropTestQueues('orders', 'payments', 'notifications');
    await closeQueues();
    await closeDb();
  });

  it('consumes a source created after it started, and exits cleanly on SIGTERM', async () => {
    const worker = spawnConsumer({ CONSUMER_DISCOVERY_MS: '300' }, 'workers/consumer.ts');
    await worker.ready;
    await createTeam(SYSTEM, { name: 'commerce' });
    await createSource(SYSTEM, { name: 'orders', team: 'commerce' });
    const batch = await produceDemoBatch({ orders: 5, giftEvery: 1, payments: 0, notifications: 0 });

    await waitFor('the gift orders parked by the worker', async () => (await db().deadLetter.count()) === 5 && (await inFlight('orders')) === 0, 30_000);
    const parked = await db().deadLetter.findMany({ select: { messageId: true, reason: true, consumerName: true } });
    expect(parked.map((d) => d.messageId).sort()).toEqual([...batch.orders.messageIds].sort());
    expect(new Set(parked.map((d) => `${d.reason} ${d.consumerName}`))).toEqual(new Set(['Rejected orders-handler']));

    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
