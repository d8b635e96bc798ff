// The demo's story through the runtime: poison orders rejected by handler v1, a payment gateway
// outage parked as a wave, missing members parked after their receives; deploy v2; redrive works.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { demoHandlers, demoHandlerVersion, deployDemoHandler, produceDemoBatch } from '@/lib/demo';
import { closeQueues } from '@/lib/queue';
import { redriveToSource, runConsumers, type ConsumerHost } from '@/lib/runtime';
import { seed } from '@/prisma/seed';
import { resetDatabase } from '../support/db';
import { dropTestQueues, inFlight, waitFor } from './runtime-support';

let host: ConsumerHost | undefined;

const deadOf = (source: string) => db().deadLetter.findMany({ where: { source: { name: source } }, orderBy: [{ messageId: 'asc' }, { generation: 'asc' }] });

describe('demo story', () => {
  beforeEach(async () => {
    await resetDatabase();
    await seed();
    host = await runConsumers(demoHandlers, { discoveryMs: 1_000, concurrency: 10 });
  });
  afterEach(async () => {
    await host?.close();
  });
  afterAll(async () => {
    await dropTestQueues('orders', 'payments', 'notifications');
    await closeQueues();
    await closeDb();
  });

  it('parks the poison of each source with its cause, and a redrive after deploying v2 succeeds', async () => {
    expect(host!.sources()).toEqual(['notifications', 'orders', 'payments']);
    const batch = await produceDemoBatch({ orders: 10, payments: 4, notifications: 8, paymentsOutageSeconds: 20 });
    expect(batch.orders.failing).toHaveLength(2);
    expect(batch.notifications.failing).toHaveLength(2);
    expect(batch.payments.failing).toHaveLength(4);

    const [orders, notifications, payments] = await waitFor(
      'every poison message parked and the queues drained',
      async () => {
        const found = await Promise.all([deadOf('orders'), deadOf('notifications'), deadOf('payments')]);
        const counts = await Promise.all(['orders', 'notifications', 'payments'].map(inFlight));
        return found.every((f, i) => f.length === [2, 2, 4][i]) && counts.every((c) => c === 0) && found;
      },
      30_000,
    );
    expect(orders.map((d) => d.messageId).sort()).toEqual([...batch.orders.failing].sort());
    expect(orders.every((d) => d.reason === 'Rejected' && d.errorType === 'OrderSchemaError' && d.consumerVersion === 'v1')).toBe(true);
    expect(orders[0]!.errorMessage).toMatch(/^unknown field "gift" in order \d+$/);
    expect(notifications.every((d) => d.reason === 'MaxReceives' && d.errorType === 'MemberNotFound' && d.receiveCount === 3)).toBe(true);
    expect(payments.every((d) => d.reason === 'MaxReceives' && d.errorType === 'PaymentGatewayError' && d.receiveCount === 4)).toBe(true);
    // One cause, one cluster: the wave reads as the outage it is.
    expect(new Set(payments.map((d) => d.clusterId)).size).toBe(1);

    const deployed = await deployDemoHandler(SYSTEM, 'v2');
    expect(deployed).toEqual({ before: 'v1', after: 'v2' });
    expect(await db().auditEvent.count({ where: { action: 'demo.deploy' } })).toBe(1);
    await waitFor('the consumers to see v2', async () => (await demoHandlerVersion()) === 'v2');

    await redriveToSource(
      'orders',
      orders.map((d) => ({
        deadLetterId: d.id,
        messageId: d.messageId,
        payload: d.payload!,
        headers: d.headers as Record<string, unknown>,
        redriveCount: d.redriveCount,
      })),
    );
    await waitFor('the redriven orders to be handled', async () => (await inFlight('orders')) === 0);
    expect(await deadOf('orders')).toHaveLength(2); // acknowledged this time: no second generation
  });

  it('deploys while every connection of the pool is busy for longer than a transaction waits by default', async () => {
    // The CLI's deploy in a loaded run (the browser suite's) found no free connection within Prisma's
    // default 2 s: it waits as long as the other audited writes do.
    const POOL = 10; // createDb's default
    let held = 0;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const busy = Array.from({ length: POOL }, () =>
      db().$transaction(
        async (tx) => {
          await tx.$queryRaw`SELECT 1`;
          held++;
          await released;
        },
        { timeout: 30_000, maxWait: 10_000 },
      ),
    );
    await waitFor('every connection held', async () => held === POOL);
    const deploy = deployDemoHandler(SYSTEM, 'v2').catch((err: unknown) => err);
    // Longer than the 2 s default: the deploy must still be waiting for a connection, not failed.
    setTimeout(release, 3_000);
    await Promise.all(busy);
    expect(await deploy).toEqual({ before: 'v1', after: 'v2' });
  });

  it('refuses a handler version that does not exist', async () => {
    await expect(deployDemoHandler(SYSTEM, 'v3')).rejects.toThrow(/v1, v2/);
  });
});
