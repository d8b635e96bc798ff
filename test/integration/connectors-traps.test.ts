// The broker's dead-letter settings checked against the known traps (lib/connectors/traps.ts), against
// the real brokers: what "test connection" answers and what the source page shows, for what each
// broker lets Triage read here — RabbitMQ over AMQP (its queue arguments need the management API),
// NATS JetStream, BullMQ on Redis, SQS on the emulator — and the FIFO warning before a redrive.
import { createServer, type AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { sourceTrapCheck } from '@/lib/connectors/trap-check';
import { ensureCaptureStream } from '@/lib/connectors/nats/capture';
import { testConnection } from '@/lib/connectors/test-connection';
import { trapLine } from '@/lib/connectors/traps';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { previewRedrive } from '@/lib/redrive';
import { createSource } from '@/lib/sources/create-source';
import { admin as natsAdmin, connectorSource as natsSource, deleteWorkStreams, workStream } from './connectors-nats-support';
import { connectorSource as rabbitSource, deleteTopologies, topology } from './connectors-rabbitmq-support';
import { queues, sqsSource, startEmulator, type Emulator } from './connectors-sqs-support';

const DAY_MS = 86_400_000;
const codes = (r: { traps?: { code: string }[] }) => (r.traps ?? []).map((t) => t.code);

freshDatabase();

describe('RabbitMQ', () => {
  afterAll(deleteTopologies);

  it('without a management URL: an info note that the queue arguments are not readable over AMQP, and no warning', async () => {
    const t = await topology({ quorum: { deliveryLimit: 1 } });
    await rabbitSource(t, 'orders-amqp');
    const r = await testConnection(SYSTEM, 'orders-amqp');
    expect(r.ok).toBe(true);
    expect(r.traps).toEqual([
      {
        code: 'settings_not_readable',
        severity: 'info',
        message: expect.stringContaining(
          'Settings not readable without the management API: x-delivery-limit, x-dead-letter-strategy and x-message-ttl were not checked',
        ),
        fix: expect.stringContaining('Set managementUrl in the connection settings'),
      },
    ]);
    expect(r).not.toHaveProperty('warnings');
    // The source page shows the same.
    expect(await sourceTrapCheck(SYSTEM, 'orders-amqp')).toEqual({ traps: r.traps });
  });

  it("with a management URL: the queues' settings, or why they could not be read", async () => {
    const t = await topology();
    await rabbitSource(t, 'orders-mgmt', { connection: { managementUrl: 'http://127.0.0.1:15672' } });
    const managed = await fetch('http://127.0.0.1:15672/api/overview', {
      headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
    }).then(
      (res) => res.ok,
      () => false,
    );
    const r = await testConnection(SYSTEM, 'orders-mgmt');
    expect(r.ok).toBe(true);
    if (managed) {
      // The work queue is a classic queue dead-lettering into the DLQ's exchange: at most once.
      expect(r.traps).toEqual([
        expect.objectContaining({ code: 'at_most_once_dead_lettering', message: expect.stringContaining(`"${t.work}" is a classic queue`) }),
      ]);
      expect(r.facts.sourceQueues).toBe(`${t.work} (classic)`);
    } else {
      expect(r.traps).toEqual([
        expect.objectContaining({
          code: 'settings_not_readable',
          severity: 'info',
          message: expect.stringContaining('Settings not readable from the management API ('),
        }),
      ]);
      expect(r.facts.management).toMatch(/^not read: /);
    }
    expect(await sourceTrapCheck(SYSTEM, 'orders-mgmt')).toEqual({ traps: r.traps });
  });
});

describe('NATS JetStream', () => {
  afterAll(deleteWorkStreams);

  it('max_deliver 1 is a warning in test connection and on the source page', async () => {
    const w = await workStream({ maxDeliver: 1 });
    await natsSource(w, 'orders-nats-once');
    const r = await testConnection(SYSTEM, 'orders-nats-once');
    expect(codes(r)).toEqual(['receive_limit_one']);
    expect(r.traps![0]!.message).toContain(`Consumer "orders-worker" of stream "${w.stream}" has max_deliver 1`);
    expect(r.warnings).toEqual([trapLine(r.traps![0]!)]);
    expect(await sourceTrapCheck(SYSTEM, 'orders-nats-once')).toEqual({ traps: r.traps });
  });

  it("max_deliver × ack_wait at half the stream's max_age, and a capture stream that keeps no longer than the stream", async () => {
    // 10 deliveries × 3 s = 30 s against a 60 s max_age.
    const loop = await workStream({ maxDeliver: 10, ackWaitMs: 3_000, maxAgeMs: 60_000 });
    await natsSource(loop, 'orders-nats-loop');
    const r = await testConnection(SYSTEM, 'orders-nats-loop');
    expect(codes(r)).toEqual(['retry_loop_near_retention']);
    expect(r.traps![0]!.message).toContain("max_deliver 10 × ack_wait 3 s = 30 s comes near its stream's max_age (1 min)");

    // The capture stream (30 d) keeps advisories no longer than a 30-day stream keeps its messages.
    const long = await workStream({ maxAgeMs: 30 * DAY_MS });
    const { jsm } = await natsAdmin();
    await ensureCaptureStream(jsm, long.stream, long.consumer);
    await natsSource(long, 'orders-nats-capture');
    const c = await testConnection(SYSTEM, 'orders-nats-capture');
    expect(codes(c)).toEqual(['dlq_retention_not_longer']);
    expect(c.traps![0]!.message).toContain(
      `"${long.capture}" keeps the dead-letter advisories 30 d (max_age), not longer than stream "${long.stream}" keeps messages (max_age 30 d)`,
    );
  });

  it('a sound consumer: no trap, no warning', async () => {
    const w = await workStream();
    await natsSource(w, 'orders-nats-fine');
    const r = await testConnection(SYSTEM, 'orders-nats-fine');
    expect(r.ok).toBe(true);
    expect(r.traps).toEqual([]);
    expect(r).not.toHaveProperty('warnings');
    expect(await sourceTrapCheck(SYSTEM, 'orders-nats-fine')).toEqual({ traps: [] });
  });
});

describe('BullMQ', () => {
  const REDIS_URL = 'redis://127.0.0.1:6379';
  const PREFIX = `ttraps${process.pid}x${Date.now().toString(36)}`;
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
  const opened: Queue[] = [];
  afterAll(async () => {
    for (const q of opened) await q.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  async function appQueue(name: string, defaultJobOptions: Record<string, unknown>) {
    const q = new Queue(name, { connection, prefix: PREFIX, defaultJobOptions });
    opened.push(q);
    await q.waitUntilReady();
    await createTeam(SYSTEM, { name: 'commerce' }).catch(() => undefined);
    await createSource(SYSTEM, { name, team: 'commerce', kind: 'bullmq', connection: { queue: name, prefix: PREFIX }, secret: { url: REDIS_URL } });
    return q;
  }

  it("attempts 1 and removeOnFail true, read from the jobs' options", async () => {
    const q = await appQueue('payments-traps', { attempts: 1, removeOnFail: true });
    await q.addBulk([
      { name: 'charge', data: { n: 1 } },
      { name: 'refund', data: { n: 2 } },
    ]);
    const r = await testConnection(SYSTEM, 'payments-traps');
    expect(r.ok).toBe(true);
    expect(codes(r)).toEqual(['receive_limit_one', 'failed_jobs_removed']);
    expect(r.traps![0]!.message).toBe(
      '2 of the 2 most recent jobs of "payments-traps" ("refund", "charge") have attempts 1: one network blip or one worker restart fails a good job for good.',
    );
    expect(r.traps![1]!.message).toContain('removeOnFail true deletes a failed job as it fails, so Triage never sees it');
    expect(r.warnings).toEqual(r.traps!.map(trapLine));
    expect(await sourceTrapCheck(SYSTEM, 'payments-traps')).toEqual({ traps: r.traps });
  });

  it('removeOnFail that keeps a day and a thousand, with retries: no trap; a queue with no job: an info note', async () => {
    const q = await appQueue('payments-kept', { attempts: 5, backoff: { type: 'exponential', delay: 1000 }, removeOnFail: { age: 86_400, count: 1_000 } });
    await q.add('charge', { n: 1 });
    expect((await testConnection(SYSTEM, 'payments-kept')).traps).toEqual([]);

    await appQueue('payments-empty', { attempts: 1 });
    const empty = await testConnection(SYSTEM, 'payments-empty');
    expect(empty.traps).toEqual([expect.objectContaining({ code: 'settings_not_readable', severity: 'info' })]);
    expect(empty).not.toHaveProperty('warnings');
  });
});

describe('SQS', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator();
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it('maxReceiveCount 1 on a FIFO queue: both traps, and the FIFO one again before a redrive', async () => {
    const q = await queues(emu.client, { fifo: true, maxReceiveCount: 1 });
    const source = await sqsSource(q, 'orders-fifo-traps', emu.endpoint);
    const r = await testConnection(SYSTEM, 'orders-fifo-traps');
    expect(r.ok).toBe(true);
    expect(codes(r)).toEqual(['receive_limit_one', 'fifo_order']);
    expect(r.traps![0]!.message).toContain(`The redrive policy of "${q.run}-orders.fifo" has maxReceiveCount 1`);
    expect(r.traps![1]!.message).toContain(
      `"${q.run}-orders.fifo" is a FIFO queue: a message moved to the dead-letter queue leaves a hole in its message group`,
    );
    expect(await sourceTrapCheck(SYSTEM, 'orders-fifo-traps')).toEqual({ traps: r.traps });

    // The redrive form's preview says it before anything is sent.
    await recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86_400 }, [
      { messageId: 'fifo-1', payload: Buffer.from('{"order":1}'), reason: 'MaxReceives' },
    ]);
    const preview = await previewRedrive(SYSTEM, { source: 'orders-fifo-traps' });
    expect(preview.traps).toEqual([r.traps![1]]);
  });

  it('maxReceiveCount × VisibilityTimeout at half the MessageRetentionPeriod; a standard queue redrives without a trap', async () => {
    // 3 receives × 10 min = 30 min against a 1 h retention (the DLQ keeps 14 d).
    const q = await queues(emu.client, { maxReceiveCount: 3, sourceVisibilityTimeout: 600, sourceRetention: 3_600 });
    const source = await sqsSource(q, 'orders-loop', emu.endpoint);
    const r = await testConnection(SYSTEM, 'orders-loop');
    expect(codes(r)).toEqual(['retry_loop_near_retention']);
    expect(r.traps![0]!.message).toContain(
      `"${q.run}-orders": maxReceiveCount 3 × VisibilityTimeout 10 min = 30 min comes near its MessageRetentionPeriod (1 h)`,
    );
    expect(r.facts[`${q.run}-orders.visibilityTimeoutSeconds`]).toBe(600);

    await recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86_400 }, [
      { messageId: 'std-1', payload: Buffer.from('{"order":1}'), reason: 'MaxReceives' },
    ]);
    expect((await previewRedrive(SYSTEM, { source: 'orders-loop' })).traps).toEqual([]);
  });
});

describe('the source page reading traps', () => {
  it('asks the broker once a minute per source, however many readers open the page', async () => {
    // A broker that accepts connections and never answers: each connection is a probe the page caused.
    let connections = 0;
    const silent = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      await createTeam(SYSTEM, { name: 'commerce' }).catch(() => undefined);
      await createSource(SYSTEM, {
        name: 'orders-silent',
        team: 'commerce',
        kind: 'rabbitmq',
        connection: { queue: 'orders.dlq' },
        secret: { url: `amqp://guest:guest@127.0.0.1:${port}` },
      });
      const first = await Promise.all([1, 2, 3].map(() => sourceTrapCheck(SYSTEM, 'orders-silent', 300)));
      for (const r of first) expect(r).toEqual({ error: 'no answer from RabbitMQ within 0 s' });
      const again = await sourceTrapCheck(SYSTEM, 'orders-silent', 300);
      expect(again).toEqual(first[0]);
      expect(connections).toBe(1);
    } finally {
      silent.close();
    }
  });
});
