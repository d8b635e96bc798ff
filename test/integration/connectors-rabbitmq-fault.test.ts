// The RabbitMQ connector under faults, bounded in time: the connectors
// process SIGKILLed over and over while it imports 10,000 dead letters loses none and writes none
// twice; the broker closing its connections by force mid-import is survived by reconnecting with
// backoff. The RabbitMQ server's restart is connectors-rabbitmq-restart.test.ts (it runs alone).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { db } from '@/lib/db';
import { spawnRedriveWorker } from './redrive-support';
import type { WorkerChild } from '../support/worker-child';
import {
  admin,
  closeConnections,
  connectorSource,
  faultTestLifecycle,
  deleteTopologies,
  depth,
  expectImportedOnce,
  FAULT_N as N,
  imported,
  spawnConnectors,
  topology,
  waitFor,
  startRedriveNoBreaker,
  importThroughKills,
  deadLetteredSource,
} from './connectors-rabbitmq-support';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RabbitMQ connector under faults', () => {
  const running = faultTestLifecycle(deleteTopologies);

  it('loses nothing and writes nothing twice while the connectors process is SIGKILLed repeatedly', { timeout: 240_000 }, async () => {
    // Small batches: an idle machine imports the 10,000 in about a second with batches of 250.
    const { t, sent, source } = await deadLetteredSource('kill', { batchSize: 50 });

    // Each child is killed while it imports: after its first commit, between batches or inside one.
    const midImport = await importThroughKills({ kills: 8, maxPauseMs: 150, total: N, imported: () => imported(source.id) });
    expect(midImport).toBeGreaterThanOrEqual(3);
    await waitFor('10,000 imported', async () => (await imported(source.id)) === N, 120_000, 250);
    await waitFor('the DLQ drained', async () => (await depth(t.dlq)) === 0, 30_000, 250);
    await expectImportedOnce(source.id, sent, N);
  });

  it('shuts down cleanly on SIGTERM mid-import: what committed left the broker, the rest is back on the queue', { timeout: 180_000 }, async () => {
    const { t, sent, source } = await deadLetteredSource('term', { batchSize: 50 });
    const child = spawnConnectors();
    await child.ready;
    await waitFor('the import under way', async () => (await imported(source.id)) > 0, 30_000, 20);
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const stored = await imported(source.id);
    expect(stored).toBeLessThan(N);
    await waitFor('the rest back on the queue', async () => (await depth(t.dlq)) === N - stored, 15_000, 100);

    const next = spawnConnectors();
    await next.ready;
    await waitFor('10,000 imported', async () => (await imported(source.id)) === N, 120_000, 250);
    await expectImportedOnce(source.id, sent, N);
  });

  it('reconnects by itself when RabbitMQ closes its connections by force mid-import', { timeout: 180_000 }, async () => {
    const { t, sent, name, source } = await deadLetteredSource('close', { batchSize: 200, prefetch: 400 });
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500, backoffBaseMs: 200, backoffCapMs: 2_000 });

    let closed = 0;
    for (let round = 0; round < 4 && (await imported(source.id)) < N; round++) {
      await waitFor('connected', async () => closeConnections(`triage import ${name}`) > 0, 20_000, 200).then(() => closed++);
      await pause(700);
    }
    expect(closed).toBeGreaterThanOrEqual(2);
    await waitFor('10,000 imported', async () => (await imported(source.id)) === N, 120_000, 250);
    await waitFor('the DLQ drained', async () => (await depth(t.dlq)) === 0, 30_000, 250);
    await expectImportedOnce(source.id, sent, N);
    const health = await db().connectorHealth.findUniqueOrThrow({ where: { sourceId: source.id } });
    expect(health.lastError).toMatch(/connection to RabbitMQ .* was lost|closed/i);
    await waitFor('healthy again', async () => (await db().connectorHealth.findUniqueOrThrow({ where: { sourceId: source.id } })).consecutiveFailures === 0);
  });

  it('resumes a redrive into RabbitMQ after SIGKILLs of the redrive worker, sending nothing twice but the batch in flight', { timeout: 240_000 }, async () => {
    const TOTAL = 3_000;
    const t = await topology();
    const source = await connectorSource(t, `redrive-${randomBytes(3).toString('hex')}`, { connection: { targetQueue: t.work } });
    for (let i = 0; i < TOTAL; i += 1_000) {
      await recordDeadLetters(
        source,
        Array.from({ length: 1_000 }, (_, k) => ({
          messageId: `r-${i + k}`,
          payload: Buffer.from(`{"n":${i + k}}`),
          reason: 'Rejected' as const,
          errorType: 'E',
          errorMessage: 'boom',
        })),
      );
    }
    const received = new Map<string, number>();
    const ch = await (await admin()).createChannel();
    await ch.prefetch(500);
    await ch.consume(t.work, (m) => {
      if (!m) return;
      const id = String(m.properties.messageId);
      received.set(id, (received.get(id) ?? 0) + 1);
      ch.ack(m);
    });
    const workers: WorkerChild[] = [];
    const start = async () => {
      const w = spawnRedriveWorker();
      workers.push(w);
      await w.ready;
      return w;
    };
    try {
      let worker = await start();
      const task = await startRedriveNoBreaker(SYSTEM, { selection: { source: source.name }, ratePerSecond: 300 });
      const messageOf = new Map(
        (await db().deadLetter.findMany({ where: { sourceId: source.id }, select: { id: true, messageId: true } })).map((d) => [d.id.toString(), d.messageId]),
      );
      const inFlight = new Set<string>();
      for (const killAt of [800, 1_800]) {
        await waitFor(`${killAt} received`, async () => received.size >= killAt, 60_000, 20);
        worker.process.kill('SIGKILL');
        await worker.exited;
        // Claimed (attempt made) but not marked sent: what may have gone out without being recorded.
        const claimed = await db().redriveItem.findMany({ where: { taskId: task.id, state: 'pending', attempts: { gt: 0 } }, select: { deadLetterId: true } });
        for (const c of claimed) inFlight.add(messageOf.get(c.deadLetterId.toString())!);
        worker = await start();
      }
      await waitFor('all sent', async () => (await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).sent === TOTAL, 90_000, 200);
      await waitFor('all received', async () => received.size === TOTAL, 30_000, 100);
      const twice = [...received].filter(([, n]) => n > 1);
      expect(twice.filter(([id, n]) => n > 2 || !inFlight.has(id))).toEqual([]);
      expect(await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ sent: TOTAL, failed: 0 });
    } finally {
      for (const w of workers) w.process.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await ch.close().catch(() => undefined);
    }
  });
});
