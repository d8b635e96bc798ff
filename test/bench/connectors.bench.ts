// The RabbitMQ connector: import throughput from a dead-letter queue into Postgres (every message
// committed through recordDeadLetters, then acknowledged) against a plain amqplib consumer that only
// acknowledges the same messages, in the same run (target ≥ 0.5×); and redrive publish rate into
// RabbitMQ at 100 and 1,000 messages/s, measured where a consumer of the original queue receives
// them (target ±5%). Needs RabbitMQ on 127.0.0.1:5672 (guest/guest).
// The two sides run interleaved, ROUNDS times (plain, import, plain, import…), so a change in the
// machine's load hits both; the round with the median ratio is reported, each round on stderr with
// the load average (the machine is shared: the ratio is the figure to read, not either rate).
//   npx tsx test/bench/run.ts connectors     (BENCH_PROF=1: a CPU profile of each import phase in /tmp/prof-connectors, or BENCH_PROF_DIR)
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import amqp from 'amqplib';
import type { BenchResult } from './run';
import { WORKER_NODE_FLAGS } from '../../scripts/lib/worker-flags.mjs';
import { measureRedrivePacing, redrivePacingResults, type RedriveFigure } from './connector-redrive';
import { importAgainst, measureWhenFlagged, runBenchChild } from './support';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { rabbitmqConfigSchema } from '@/lib/connectors/rabbitmq/config';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import { createSource } from '@/lib/sources/create-source';

const CHILD_FLAG = '--connectors-bench-child';
const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672/%2F';
// 50,000 per side: several seconds of import, so the figure is mostly the steady rate rather than the
// connector's start (connecting, the first batches while the JIT warms up: a fifth of a 20,000-message
// round), and the three rounds fit the default bench's 15 minutes.
const IMPORT_N = Number(process.env.BENCH_IMPORT_N ?? 50_000);
const ROUNDS = 3;
const REDRIVE_RATES = [100, 1_000];
const REDRIVE_SECONDS = 5;

interface Round {
  plainPerSecond: number;
  importPerSecond: number;
  /** This process's CPU time (user + system) per message, µs: a figure the machine's load barely moves. */
  plainCpuUs: number;
  importCpuUs: number;
  /** 1-minute load average at the end of the round. */
  load: number;
}

interface Measured {
  rounds: Round[];
  redrive: RedriveFigure[];
}

async function child(): Promise<Measured> {
  const profiler = process.env.BENCH_PROF ? await importProfiler(process.env.BENCH_PROF_DIR ?? '/tmp/prof-connectors') : null;
  const run = `triage-bench.${Date.now().toString(36)}`;
  const names = { exchange: `${run}.orders`, work: `${run}.work`, dlx: `${run}.dlx`, dlq: `${run}.dlq` };
  const conn = await amqp.connect(AMQP_URL);
  const ch = await conn.createConfirmChannel();
  await ch.assertExchange(names.exchange, 'direct', { durable: false });
  await ch.assertExchange(names.dlx, 'fanout', { durable: false });
  await ch.assertQueue(names.dlq, { durable: true });
  await ch.bindQueue(names.dlq, names.dlx, '');
  await ch.assertQueue(names.work, { durable: true, arguments: { 'x-dead-letter-exchange': names.dlx } });
  await ch.bindQueue(names.work, names.exchange, 'order.created');

  /** IMPORT_N dead letters in the DLQ, dead-lettered by a consumer's reject (so they carry x-death). */
  async function fill(): Promise<void> {
    const rejecter = await conn.createChannel();
    await rejecter.prefetch(1_000);
    const { consumerTag } = await rejecter.consume(names.work, (m) => m && rejecter.nack(m, false, false));
    for (let i = 0; i < IMPORT_N; i++) {
      const body = Buffer.from(JSON.stringify({ order: i, sku: 'A-1', qty: 2, note: randomBytes(48).toString('hex') }));
      const headers = {
        'x-exception-message': `Order ${i} rejected: unknown field "giftWrap"`,
        'x-exception-stacktrace': 'com.acme.UnknownFieldException: unknown field\n\tat com.acme.OrderHandler.handle(OrderHandler.java:42)',
      };
      if (!ch.publish(names.exchange, 'order.created', body, { messageId: `m-${i}-${Date.now()}`, persistent: true, headers }))
        await new Promise((r) => ch.once('drain', r));
    }
    await ch.waitForConfirms();
    for (;;) {
      if ((await ch.checkQueue(names.dlq)).messageCount >= IMPORT_N) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await rejecter.cancel(consumerTag);
    await rejecter.close();
  }

  await createTeam(SYSTEM, { name: 'bench' });
  const source = await createSource(SYSTEM, {
    name: 'bench-rmq',
    team: 'bench',
    kind: 'rabbitmq',
    connection: { queue: names.dlq },
    secret: { url: AMQP_URL },
  });
  await db().source.update({ where: { id: source.id }, data: { approvalThreshold: 1_000_000, maxRedrives: 100 } });

  // Baseline: a plain consumer with the connector's prefetch, acknowledging each message as it arrives.
  const plainRate = async () => {
    const plain = await conn.createChannel();
    await plain.prefetch(rabbitmqConfigSchema.parse({ queue: names.dlq }).prefetch);
    let acked = 0;
    const cpu = process.cpuUsage();
    const plainStart = performance.now();
    await new Promise<void>((resolve) => {
      void plain.consume(names.dlq, (m) => {
        if (!m) return;
        plain.ack(m);
        if (++acked === IMPORT_N) resolve();
      });
    });
    const perSecond = IMPORT_N / ((performance.now() - plainStart) / 1000);
    const used = process.cpuUsage(cpu);
    await plain.close();
    return { perSecond, cpuUs: (used.user + used.system) / IMPORT_N };
  };

  // The connector: the same messages, written to Postgres before each batch is acknowledged.
  // The connector's own count of committed dead letters, one row, read with postgres.js (counting rows
  // while they arrive would slow the import down; the broker's depth leaves out delivered,
  // unacknowledged messages; a Prisma query every 20 ms costs this process CPU the import needs).
  const importedSoFar = async () =>
    (await pg()<{ n: bigint }[]>`SELECT imported_total AS n FROM connector_health WHERE source_id = ${source.id}::uuid`)[0]?.n ?? 0n;
  const importRate = async (round: number) => {
    await profiler?.start();
    const cpu = process.cpuUsage();
    const importStart = performance.now();
    const connectors = await startConnectorSupervisor({ only: [source.id] });
    while ((await importedSoFar()) < BigInt(IMPORT_N * (round + 1))) await new Promise((r) => setTimeout(r, 20));
    const perSecond = IMPORT_N / ((performance.now() - importStart) / 1000);
    const used = process.cpuUsage(cpu);
    await profiler?.stop(`import-${round + 1}`);
    await connectors.stop();
    return { perSecond, cpuUs: (used.user + used.system) / IMPORT_N };
  };

  const rounds: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await fill();
    const plain = await plainRate();
    await fill();
    const imported = await importRate(round);
    const load = loadavg()[0]!;
    rounds.push({ plainPerSecond: plain.perSecond, importPerSecond: imported.perSecond, plainCpuUs: plain.cpuUs, importCpuUs: imported.cpuUs, load });
    process.stderr.write(
      `[connectors bench] round ${round + 1}/${ROUNDS}: plain ${plain.perSecond.toFixed(0)} msg/s (${plain.cpuUs.toFixed(1)} µs CPU/msg), ` +
        `import ${imported.perSecond.toFixed(0)} msg/s (${imported.cpuUs.toFixed(1)} µs CPU/msg), ratio ${(imported.perSecond / plain.perSecond).toFixed(2)}×, load ${load.toFixed(1)}\n`,
    );
  }
  const stored = await db().deadLetter.count({ where: { sourceId: source.id } });
  if (stored !== IMPORT_N * ROUNDS) throw new Error(`imported ${stored} of ${IMPORT_N * ROUNDS}`);

  // Redrive pacing, measured at a consumer of the original queue.
  const receiver = await conn.createChannel();
  await receiver.prefetch(2_000);
  let arrivals: number[] = [];
  await receiver.consume(names.work, (m) => {
    if (!m) return;
    arrivals.push(performance.now());
    receiver.ack(m);
  });
  const redrive = await measureRedrivePacing(source.id, REDRIVE_RATES, REDRIVE_SECONDS, { arrivals: () => arrivals, reset: () => (arrivals = []) });
  await receiver.close();

  for (const q of [names.work, names.dlq]) await ch.deleteQueue(q);
  for (const x of [names.exchange, names.dlx]) await ch.deleteExchange(x);
  await conn.close();
  return { rounds, redrive };
}

/** A CPU profile of the import phases alone (the fills and the plain consumer would drown them). */
async function importProfiler(dir: string) {
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  return {
    start: () => session.post('Profiler.start'),
    async stop(name: string) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(`${dir}/${name}.cpuprofile`, JSON.stringify(profile));
    },
  };
}

export async function run(): Promise<BenchResult[]> {
  // The child imports as workers/connectors.ts does, with the worker's Node flags.
  const nodeArgs = WORKER_NODE_FLAGS['connectors.ts'];
  const m = await runBenchChild<Measured>('connectors', import.meta.url, CHILD_FLAG, { nodeArgs, timeoutMs: 300_000 });
  return [
    importAgainst(
      `connectors.rabbitmq import ${IMPORT_N} dead letters into Postgres`,
      m.rounds,
      { name: 'plain amqplib consumer acking the same messages', rate: (r) => r.plainPerSecond },
      {
        target: 0.5,
        detail: (median) => `this process's CPU per message: import ${median.importCpuUs.toFixed(1)} µs, plain ${median.plainCpuUs.toFixed(1)} µs`,
      },
    ),
    ...redrivePacingResults('rabbitmq', 'msg/s', m.redrive),
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
