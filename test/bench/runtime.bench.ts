// The broker runtime against plain BullMQ, measured in the same run on the same Redis:
// - acknowledged messages/s: the runtime's consumer (envelope check, policy, receive counting) vs
//   a plain BullMQ worker completing the same jobs (target ≥ 0.7×);
// - dead-lettered messages/s: the runtime parking permanent failures write-then-delete (committed
//   in Postgres with their evidence, then removed from Redis) vs plain BullMQ failing the same
//   jobs into its failed set (target ≥ 0.5×).
// 5,000 messages each at concurrency 50, after a warm-up, best of two rounds. The measurement runs
// in a child process with its own database and queue prefix, since lib/env is read once per process.
//   npx tsx test/bench/run.ts runtime
import { Queue, Worker } from 'bullmq';
import { randomBytes } from 'node:crypto';
import type { BenchResult } from './run';
import { measureWhenFlagged, runBenchChild } from './support';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { PermanentError } from '@/lib/broker';
import { db } from '@/lib/db';
import { producerQueue, queuePrefix, QUEUES } from '@/lib/queue';
import { redisConnection } from '@/lib/redis';
import { consume, sendMany } from '@/lib/runtime';
import { createSource } from '@/lib/sources/create-source';

const CHILD_FLAG = '--runtime-bench-child';
const MESSAGES = 5_000;
const WARMUP = 500;
const CONCURRENCY = 50;

interface Measured {
  plainAck: number;
  runtimeAck: number;
  plainFail: number;
  runtimeDeadLetter: number;
}

async function child(): Promise<Measured> {
  await createTeam(SYSTEM, { name: 'bench' });
  const body = new Uint8Array(randomBytes(200));
  const headers = { 'content-type': 'application/octet-stream', 'x-tenant': 'acme' };
  const connection = redisConnection('producer');
  const gift = () => new PermanentError('unknown field "gift" in order 13');

  /** Time until the queue holds nothing in flight (polling counts, as for both sides). */
  type Counted = { getJobCounts(...types: string[]): Promise<Record<string, number>> };
  const count = (c: Record<string, number>, ...types: string[]) => types.reduce((n, t) => n + (c[t] ?? 0), 0);

  async function drain(queue: Counted, done: (c: Record<string, number>) => boolean, start: number): Promise<number> {
    for (;;) {
      const c = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed', 'completed');
      if (done(c)) return (performance.now() - start) / 1000;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async function plain(name: string, n: number, fail: boolean): Promise<number> {
    const queue = new Queue(name, { connection, prefix: queuePrefix() });
    await queue.addBulk(
      Array.from({ length: n }, (_, i) => ({
        name: 'm',
        data: { body: Buffer.from(body).toString('base64'), headers, messageId: `p-${i}` },
        opts: { removeOnComplete: true },
      })),
    );
    const start = performance.now();
    const worker = new Worker(
      name,
      async () => {
        if (fail) throw gift();
      },
      { connection: redisConnection('worker'), prefix: queuePrefix(), concurrency: CONCURRENCY },
    );
    const seconds = await drain(queue, (c) => count(c, 'wait', 'active', 'delayed', 'prioritized') === 0 && count(c, 'failed') === (fail ? n : 0), start);
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    return n / seconds;
  }

  async function runtime(name: string, n: number, fail: boolean): Promise<number> {
    const source = await createSource(SYSTEM, { name, team: 'bench' });
    for (let i = 0; i < n; i += 1_000) {
      await sendMany(
        name,
        Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({ body, headers, messageId: `r-${i + k}` })),
      );
    }
    const start = performance.now();
    const consumer = await consume(
      name,
      async () => {
        if (fail) throw gift();
      },
      { consumerName: 'bench', consumerVersion: '1', concurrency: CONCURRENCY },
    );
    const seconds = await drain(producerQueue(QUEUES.source(name)), (c) => Object.values(c).every((v) => v === 0), start);
    await consumer.close();
    if (fail && (await db().deadLetter.count({ where: { sourceId: source.id } })) !== n) throw new Error('dead letters missing');
    await producerQueue(QUEUES.source(name)).obliterate({ force: true });
    return n / seconds;
  }

  await plain('bench-warm-plain', WARMUP, false);
  await runtime('bench-warm-ack', WARMUP, false);
  await plain('bench-warm-plain-fail', WARMUP, true);
  await runtime('bench-warm-dlq', WARMUP, true);

  // Two rounds, each side alternating with its baseline; the better of each, as the machine is shared.
  const measured: Measured = { plainAck: 0, runtimeAck: 0, plainFail: 0, runtimeDeadLetter: 0 };
  for (const round of [1, 2]) {
    measured.plainAck = Math.max(measured.plainAck, await plain(`bench-plain-ack-${round}`, MESSAGES, false));
    measured.runtimeAck = Math.max(measured.runtimeAck, await runtime(`bench-ack-${round}`, MESSAGES, false));
    measured.plainFail = Math.max(measured.plainFail, await plain(`bench-plain-fail-${round}`, MESSAGES, true));
    measured.runtimeDeadLetter = Math.max(measured.runtimeDeadLetter, await runtime(`bench-dlq-${round}`, MESSAGES, true));
  }
  await connection.quit();
  return measured;
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('runtime', import.meta.url, CHILD_FLAG, { timeoutMs: 180_000 });
  const round = (v: number) => Math.round(v);
  return [
    {
      name: `runtime.ack throughput (${MESSAGES} messages, concurrency ${CONCURRENCY})`,
      value: round(m.runtimeAck),
      unit: 'msg/s',
      baseline: { name: 'plain BullMQ completing the same jobs', value: round(m.plainAck) },
      target: '≥ 0.7× baseline',
      met: m.runtimeAck >= 0.7 * m.plainAck,
    },
    {
      name: `runtime.dead-letter throughput (${MESSAGES} permanent failures, write-then-delete)`,
      value: round(m.runtimeDeadLetter),
      unit: 'msg/s',
      baseline: { name: 'plain BullMQ failing the same jobs', value: round(m.plainFail) },
      target: '≥ 0.5× baseline',
      met: m.runtimeDeadLetter >= 0.5 * m.plainFail,
    },
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
