// The source queue beside its DLQ, against the real brokers (RabbitMQ, the SQS emulator, NATS
// JetStream, BullMQ on Redis): an empty DLQ proves nothing when nothing consumes the source queue.
// The maintenance cycle reads each source queue (readSourceQueues, then evaluateAlarms, as
// workers/maintenance.ts runs them); a queue with messages and no consumer raises the source's
// consumer alarm, to its team's webhooks; a consumer attached clears it; the source page's data and
// the SLA board show the reading; a broker that is down or silent leaves the last reading, marked
// stale with the reason, and the cycle goes on.
import { createServer, type Server } from 'node:net';
import { ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import amqp from 'amqplib';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmStates } from '@/lib/alarms/list-alarms';
import { RULES } from '@/lib/model/alarm-rules';
import { SECOND, manualClock, type Clock } from '@/lib/clock';
import { encryptSecret } from '@/lib/connectors/secrets';
import { readSourceQueues } from '@/lib/connectors/source-queue';
import { closeDb, db } from '@/lib/db';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { createWebhook } from '@/lib/notifications/webhooks';
import { closeQueues } from '@/lib/queue';
import { createSource } from '@/lib/sources/create-source';
import { getSource } from '@/lib/sources/get-source';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { resetDatabase } from '../support/db';
import * as rabbit from './connectors-rabbitmq-support';
import * as nats from './connectors-nats-support';
import { queues as sqsQueues, sqsSource, startEmulator, type Emulator } from './connectors-sqs-support';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PREFIX = `tsq${process.pid}x${Date.now().toString(36)}`;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });

/** One maintenance cycle at the clock's time: the source queues read, then the alarms. */
async function cycle(clock: Clock, timeoutMs?: number) {
  const read = await readSourceQueues(clock, timeoutMs ? { timeoutMs } : {});
  const alarms = await evaluateAlarms(clock);
  return { read, alarms };
}

async function consumerAlarm(source: string) {
  return (await listAlarmStates(SYSTEM)).find((a) => a.sourceName === source && a.kind === 'consumer');
}

/** What the source page and the SLA board show of the source queue. */
async function shown(source: string, clock: Clock) {
  const page = (await getSource(SYSTEM, source)).connector!.sourceQueue;
  const board = (await getSlaBoard(SYSTEM, { clock })).find((r) => r.source.name === source)!.sourceQueue;
  return { page, board };
}

/** The alarm notifications the team's webhook was given, as their text. */
async function notified(): Promise<string[]> {
  const rows = await db().webhookDelivery.findMany({ where: { event: 'alarm.transition' }, orderBy: { id: 'asc' } });
  return rows.map((r) => (r.body as { text: string }).text);
}

async function teamWithWebhook() {
  await createTeam(SYSTEM, { name: 'commerce' }).catch(() => undefined);
  await createWebhook(SYSTEM, { url: 'https://hooks.example.com/triage', team: 'commerce' });
}

/**
 * The whole story on one source: no consumer → PENDING, held past the confirm time → ALARM (and a
 * notification naming the queue and the advice); then `attach` gives the queue a consumer → OK.
 */
async function noConsumerStory(source: string, queue: string, attach: () => Promise<void>, expectFixed: (q: unknown) => void) {
  const clock = manualClock(new Date());
  await cycle(clock);
  expect(await consumerAlarm(source)).toMatchObject({ state: 'PENDING', label: 'nothing consumes' });
  clock.advance(RULES.consumerConfirmMs + SECOND);
  const { read } = await cycle(clock);
  expect(read.failed).toEqual([]);
  const alarm = (await consumerAlarm(source))!;
  expect(alarm).toMatchObject({ state: 'ALARM', label: 'nothing consumes' });
  expect(alarm.hint).toBe(
    `nothing consumes ${queue}: start the consumer, or check its circuit breaker; dead letters cannot show this (nothing fails, so nothing is dead-lettered)`,
  );
  const sent = await notified();
  expect(sent.at(-1)).toContain(`[ALARM] ${source} consumer alarm PENDING → ALARM: nothing consumes ${queue}`);
  expect(sent.at(-1)).toContain('start the consumer, or check its circuit breaker; dead letters cannot show this');

  const { page, board } = await shown(source, clock);
  expect(page).toMatchObject({ queue, noConsumer: true, stale: false, staleReason: null });
  expect(board).toEqual(page);

  await attach();
  clock.advance(15 * SECOND);
  await cycle(clock);
  expect(await consumerAlarm(source)).toMatchObject({ state: 'OK', label: null });
  expect((await notified()).at(-1)).toContain(`[OK] ${source} consumer alarm ALARM → OK: ${queue} is consumed again`);
  const after = await shown(source, clock);
  expect(after.page).toMatchObject({ queue, noConsumer: false, stale: false });
  expectFixed(after.page);
  expect(after.board).toEqual(after.page);
}

let emulator: Emulator | null = null;
const cleanups: (() => Promise<unknown>)[] = [];
const servers: Server[] = [];

describe('the source queue beside its DLQ', () => {
  beforeEach(async () => {
    await resetDatabase();
    await teamWithWebhook();
  });
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    for (const s of servers) s.close();
    await rabbit.deleteTopologies();
    await nats.deleteWorkStreams();
    await emulator?.stop();
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await closeQueues();
    await closeDb();
  });

  it('RabbitMQ: messages on the work queue and no consumer alarm; a consumer attached clears it', async () => {
    const t = await rabbit.topology();
    await rabbit.connectorSource(t, 'orders', { connection: { sourceQueue: t.work } });
    await rabbit.publish(
      t.exchange,
      t.routingKey,
      [1, 2, 3].map((n) => ({ content: Buffer.from(JSON.stringify({ n })) })),
    );
    // The DLQ is empty: its figures alone would say all is well.
    expect(await rabbit.depth(t.dlq)).toBe(0);

    await noConsumerStory(
      'orders',
      t.work,
      async () => {
        // A slow consumer: it holds one message unacknowledged, two wait.
        const conn = await amqp.connect(rabbit.AMQP_URL);
        cleanups.push(() => conn.close());
        const ch = await conn.createChannel();
        await ch.prefetch(1);
        await ch.consume(t.work, () => undefined);
        await rabbit.waitFor('the consumer to hold a message', async () => (await rabbit.depth(t.work)) === 2);
      },
      (q) => expect(q).toMatchObject({ depth: 2, consumers: 1, inFlight: null, oldestAgeSeconds: null }),
    );
  });

  it('RabbitMQ: a broker that is down or silent leaves the last reading, stale with the reason; the cycle goes on', async () => {
    const t = await rabbit.topology();
    const orders = await rabbit.connectorSource(t, 'orders', { connection: { sourceQueue: t.work } });
    await rabbit.publish(t.exchange, t.routingKey, [{ content: Buffer.from('{}') }]);
    // A listener that accepts and never answers: the read times out rather than holding the cycle.
    const silent = createServer(() => undefined);
    servers.push(silent);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentPort = (silent.address() as { port: number }).port;
    await createSource(SYSTEM, {
      name: 'silent',
      team: 'commerce',
      kind: 'rabbitmq',
      connection: { queue: 'x.dlq', sourceQueue: 'x' },
      secret: { url: `amqp://guest:guest@127.0.0.1:${silentPort}/` },
    });
    // No source queue named: not watched, and no alarm.
    await createSource(SYSTEM, { name: 'unwatched', team: 'commerce', kind: 'rabbitmq', connection: { queue: t.dlq }, secret: { url: rabbit.AMQP_URL } });

    const clock = manualClock(new Date());
    // A connection attempt alone would wait 10 s for the silent one: the read gives up after 1 s.
    const started = Date.now();
    const read = await readSourceQueues(clock, { timeoutMs: 1_000 });
    expect(Date.now() - started).toBeLessThan(6_000);
    const first = { read, alarms: await evaluateAlarms(clock) };
    expect(first.read.read).toBe(1);
    expect(first.read.failed).toEqual(
      expect.arrayContaining([
        { source: 'silent', error: 'the broker did not answer within 1000 ms' },
        { source: 'unwatched', error: expect.stringMatching(/No source queue is set/) },
      ]),
    );
    expect((await shown('orders', clock)).page).toMatchObject({ queue: t.work, depth: 1, consumers: 0, stale: false });
    const scraped = (await renderMetrics(SYSTEM, clock)).body;
    expect(scraped).toContain('triage_source_queue_depth{source="orders",kind="rabbitmq"} 1');
    expect(scraped).toContain('triage_source_queue_consumers{source="orders",kind="rabbitmq"} 0');
    expect(scraped).toContain('triage_source_queue_stale{source="orders",kind="rabbitmq"} 0');
    // Not watched, or never read: no figures, only what is known.
    expect(scraped).not.toContain('triage_source_queue_depth{source="unwatched"');
    expect(scraped).toContain('triage_source_queue_stale{source="silent",kind="rabbitmq"} 1');
    expect((await shown('silent', clock)).page).toMatchObject({
      queue: null,
      depth: null,
      stale: true,
      staleReason: 'the broker did not answer within 1000 ms',
      readAt: null,
    });
    expect((await shown('unwatched', clock)).page).toMatchObject({ queue: null, stale: true, staleReason: expect.stringMatching(/No source queue is set/) });
    expect(await consumerAlarm('silent')).toBeUndefined();
    expect(await consumerAlarm('unwatched')).toBeUndefined();
    clock.advance(RULES.consumerConfirmMs + SECOND);
    await cycle(clock, 1_000);
    expect(await consumerAlarm('orders')).toMatchObject({ state: 'ALARM' });

    // The broker goes away (its address now refuses connections): the last figures stay, marked stale.
    const readAt = (await shown('orders', clock)).page!.readAt;
    await db().source.update({
      where: { id: orders.id },
      data: { connectionSecret: new Uint8Array(encryptSecret({ url: 'amqp://guest:guest@127.0.0.1:1/' })) },
    });
    clock.advance(15 * SECOND);
    const down = await cycle(clock, 1_000);
    expect(down.read.failed).toContainEqual({ source: 'orders', error: expect.stringMatching(/RabbitMQ at 127\.0\.0\.1:1 is not reachable/) });
    const { page, board } = await shown('orders', clock);
    expect(page).toMatchObject({ queue: t.work, depth: 1, consumers: 0, readAt, stale: true, staleReason: expect.stringMatching(/not reachable/) });
    expect(board).toEqual(page);
    expect((await renderMetrics(SYSTEM, clock)).body).toContain('triage_source_queue_stale{source="orders",kind="rabbitmq"} 1');
    // A stale reading moves no alarm: it stays as the last fresh one left it.
    expect(await consumerAlarm('orders')).toMatchObject({ state: 'ALARM' });
  });

  it('many silent brokers: no read starts past the budget, and the next cycle starts with those left', async () => {
    const silent = createServer(() => undefined);
    servers.push(silent);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `amqp://guest:guest@127.0.0.1:${(silent.address() as { port: number }).port}/`;
    const names = Array.from({ length: 10 }, (_, i) => `silent-${i}`);
    for (const name of names)
      await createSource(SYSTEM, { name, team: 'commerce', kind: 'rabbitmq', connection: { queue: 'x.dlq', sourceQueue: 'x' }, secret: { url } });
    const tried = async () => (await db().sourceQueueReading.findMany({ where: { errorAt: { not: null } } })).length;

    // Eight reads at once, each given up after 1 s; past 300 ms of the cycle no new one starts.
    const clock = manualClock(new Date());
    const first = await readSourceQueues(clock, { timeoutMs: 1_000, budgetMs: 300 });
    expect(first).toMatchObject({ read: 0, deferred: 2 });
    expect(first.failed).toHaveLength(8);
    expect(await tried()).toBe(8);
    // The alarms still run: the cycle is not held.
    await evaluateAlarms(clock);

    clock.advance(15 * SECOND);
    const second = await readSourceQueues(clock, { timeoutMs: 1_000, budgetMs: 300 });
    expect(second.deferred).toBe(2);
    // The two left out before were among the first read this time.
    expect(await tried()).toBe(10);
  });

  it('SQS: messages waiting and none in flight alarm; a consumer receiving clears it', async () => {
    emulator ??= await startEmulator();
    const q = await sqsQueues(emulator.client);
    await sqsSource(q, 'payments', emulator.endpoint);
    await emulator.client.send(
      new SendMessageBatchCommand({ QueueUrl: q.source, Entries: [1, 2].map((n) => ({ Id: String(n), MessageBody: JSON.stringify({ n }) })) }),
    );
    const queueName = q.source.split('/').at(-1)!;

    await noConsumerStory(
      'payments',
      queueName,
      async () => {
        // A consumer receives one message and works on it (it stays in flight).
        const got = await emulator!.client.send(new ReceiveMessageCommand({ QueueUrl: q.source, MaxNumberOfMessages: 1, VisibilityTimeout: 300 }));
        expect(got.Messages).toHaveLength(1);
      },
      // SQS counts no consumers and tells no age (a CloudWatch metric): both unknown.
      (r) => expect(r).toMatchObject({ depth: 1, inFlight: 1, consumers: null, oldestAgeSeconds: null }),
    );
  });

  it('NATS JetStream: pending messages on a consumer nobody pulls from alarm; a client pulling clears it', async () => {
    const w = await nats.workStream();
    await nats.connectorSource(w, 'shipping');
    await nats.publish(
      w,
      [1, 2, 3].map((n) => ({ n, data: nats.order(n, w.run) })),
    );

    const clock = manualClock(new Date());
    await cycle(clock);
    const before = (await shown('shipping', clock)).page!;
    expect(before).toMatchObject({ queue: `${w.stream}/${w.consumer}`, depth: 3, inFlight: 0, consumers: 0, noConsumer: true });
    // The first message after the ack floor was published just now.
    expect(before.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
    expect(before.oldestAgeSeconds).toBeLessThan(60);

    await noConsumerStory(
      'shipping',
      `${w.stream}/${w.consumer}`,
      async () => {
        const c = await nats.workConsumer(w, () => 'ack');
        cleanups.push(() => c.close());
        await rabbit.waitFor('the client to pull', async () =>
          (await nats.admin()).jsm.consumers.info(w.stream, w.consumer).then((i) => i.num_waiting > 0 && i.num_pending === 0),
        );
      },
      (r) => {
        expect(r).toMatchObject({ depth: 0 });
        expect((r as { consumers: number }).consumers).toBeGreaterThan(0);
      },
    );
  });

  it('BullMQ: waiting jobs without a worker alarm; a worker clears it; a job waiting past the limit alarms again', async () => {
    const name = 'invoices';
    const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
    const queue = new Queue(name, { connection, prefix: PREFIX });
    cleanups.push(() => queue.close());
    await queue.waitUntilReady();
    await createSource(SYSTEM, { name: 'billing', team: 'commerce', kind: 'bullmq', connection: { queue: name, prefix: PREFIX }, secret: { url: REDIS_URL } });
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'invoice', data: { n } })));

    // A worker stuck on its first job (concurrency 1): attached, and the others wait behind it.
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    let worker: Worker | null = null;
    cleanups.push(async () => {
      release();
      await worker?.close();
    });
    await noConsumerStory(
      'billing',
      `${PREFIX}:${name}`,
      async () => {
        worker = new Worker(name, () => stuck, { connection, prefix: PREFIX, concurrency: 1 });
        worker.on('error', () => undefined);
        await rabbit.waitFor('the worker to take a job', async () => (await queue.getJobCounts('active')).active === 1);
      },
      (r) => expect(r).toMatchObject({ depth: 2, inFlight: 1, consumers: 1 }),
    );

    // A job enqueued an hour ago still waits: the worker is there but the queue does not move.
    await queue.drain();
    await queue.add('invoice', { n: 4 }, { timestamp: Date.now() - 3_600_000 });
    const clock = manualClock(new Date());
    await cycle(clock);
    clock.advance(RULES.consumerConfirmMs + SECOND);
    await cycle(clock);
    const alarm = (await consumerAlarm('billing'))!;
    expect(alarm).toMatchObject({ state: 'ALARM', label: 'source queue stalled' });
    expect(alarm.hint).toMatch(new RegExp(`^${PREFIX}:${name}: its oldest message waits past the limit`));
    expect((await notified()).at(-1)).toMatch(new RegExp(`the oldest message of ${PREFIX}:${name} waits 1 h`));
    const { page } = await shown('billing', clock);
    expect(page).toMatchObject({ depth: 1, consumers: 1, noConsumer: false });
    expect(page!.oldestAgeSeconds).toBeGreaterThanOrEqual(3_600);
  });
});
