// The NATS JetStream connector under faults, bounded in time: the connectors process
// SIGKILLed over and over while it imports 5,000 dead letters loses none and writes none twice; its
// connection cut mid-import (a TCP proxy dropping it) is survived by reconnecting with backoff. The
// NATS server's restart is connectors-nats-restart.test.ts (it runs alone: every test shares that server).
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { faultTestLifecycle, expectImportedOnce, spawnConnectors, waitFor } from './connectors-rabbitmq-support';
import { deleteWorkStreams, workStream } from './connectors-nats-support';
import { deadLettered, imported, N, pause, unread, expectImportedThroughOutage } from './connectors-nats-fault-support';

/** A TCP proxy to nats-server whose connections the test can cut, as a network fault would. */
async function cuttableProxy(): Promise<{ url: string; cut(): number; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(4222, '127.0.0.1');
    for (const s of [client, upstream]) {
      open.add(s);
      s.once('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${port}`,
    cut: () => {
      const n = open.size;
      for (const s of open) s.destroy();
      return n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}

describe('NATS JetStream connector under faults', () => {
  const running = faultTestLifecycle(deleteWorkStreams);

  it('loses nothing and writes nothing twice while the connectors process is SIGKILLed repeatedly', { timeout: 240_000 }, async () => {
    const w = await workStream({ maxDeliver: 2 });
    // Small batches: on an idle machine a child imports the whole 5,000 within a second otherwise.
    const { sourceId, sent } = await deadLettered(w, `kill-${randomBytes(3).toString('hex')}`, { batchSize: 25 });

    let kills = 0;
    while (kills < 8) {
      const child = spawnConnectors();
      await child.ready;
      // Kill it mid-import: a moment after a batch committed.
      const before = await imported(sourceId);
      await waitFor('import under way', async () => (await imported(sourceId)) > before || undefined, 30_000, 20).catch(() => undefined);
      await pause(Math.floor(Math.random() * 300));
      child.kill('SIGKILL');
      await child.exited;
      kills++;
      if ((await imported(sourceId)) === N) break;
    }
    expect(kills).toBeGreaterThanOrEqual(3);
    const last = spawnConnectors();
    await last.ready;
    // Advisories in flight at a kill come back after the reader's ack wait (NATS_READER_ACK_WAIT_SECONDS, 10 s here).
    await waitFor('5,000 imported', async () => (await imported(sourceId)) === N, 120_000, 250);
    await waitFor('every advisory acknowledged', async () => (await unread(w, sourceId)) === 0, 60_000, 250);
    await expectImportedOnce(sourceId, sent, N);
  });

  it('reconnects by itself when its connection to NATS is cut mid-import', { timeout: 240_000 }, async () => {
    const w = await workStream({ maxDeliver: 2 });
    const proxy = await cuttableProxy();
    try {
      const { sourceId, sent } = await deadLettered(w, `cut-${randomBytes(3).toString('hex')}`, { batchSize: 25, url: proxy.url });
      running.connectors = await startConnectorSupervisor({ only: [sourceId], discoveryMs: 500, backoffBaseMs: 200, backoffCapMs: 2_000 });
      let cuts = 0;
      for (let round = 0; round < 3 && (await imported(sourceId)) < N; round++) {
        await waitFor('connected and importing', async () => (await imported(sourceId)) > round * 200, 60_000, 50);
        if (proxy.cut() > 0) cuts++;
        await pause(500);
      }
      expect(cuts).toBeGreaterThanOrEqual(2);
      await expectImportedThroughOutage(w, sourceId, sent, 250);
    } finally {
      await proxy.close();
    }
  });
});
