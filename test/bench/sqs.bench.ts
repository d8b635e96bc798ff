// The SQS connector: import throughput from a dead-letter queue into Postgres (every batch committed
// through recordDeadLetters, then deleted by receipt handle) against a plain SDK receive+delete loop
// on the same emulator, with the same number of receives at once, in the same run (target ≥ 0.5×).
// Runs fauxqs from test/peers/sqs (installed on first use). Beside it, the cost of reading AWS failure
// records (lib/connectors/sqs/envelope.ts), in this process: the mapping of plain events with
// `envelope: auto` against `none` (auto must cost a plain event next to nothing), and of Lambda
// records read into their events against the plain receive+delete loop (reading must stay far below
// what receiving costs).
//   npx tsx test/bench/run.ts sqs
import { randomBytes } from 'node:crypto';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { BenchResult } from './run';
import { importAgainst, measureWhenFlagged, runBenchChild } from './support';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { toDeadLetter } from '@/lib/connectors/sqs/message';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db } from '@/lib/db';
import { queues, sqsSource, startEmulator } from '../integration/connectors-sqs-support';
import { lambdaDestinationRecord } from '../support/aws-envelopes';

const CHILD_FLAG = '--sqs-bench-child';
const IMPORT_N = 5_000;
const POLLERS = 4;

interface Measured {
  plainPerSecond: number;
  importPerSecond: number;
}

async function child(): Promise<Measured> {
  const emu = await startEmulator();
  const { client } = emu;
  const fill = async (url: string) => {
    for (let i = 0; i < IMPORT_N; i += 10) {
      await client.send(
        new SendMessageBatchCommand({
          QueueUrl: url,
          Entries: Array.from({ length: 10 }, (_, j) => ({
            Id: String(j),
            MessageBody: JSON.stringify({ order: i + j, sku: 'A-1', qty: 2, note: randomBytes(48).toString('hex') }),
            MessageAttributes: { 'x-exception-message': { DataType: 'String', StringValue: `Order ${i + j} rejected: unknown field "giftWrap"` } },
          })),
        }),
      );
    }
  };

  // Baseline: receive and delete, nothing else, with the connector's number of receives at once.
  const plainQueues = await queues(client);
  await fill(plainQueues.dlq);
  let received = 0;
  const plainStart = performance.now();
  await Promise.all(
    Array.from({ length: POLLERS }, async () => {
      while (received < IMPORT_N) {
        const r = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: plainQueues.dlq,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        const m = r.Messages ?? [];
        if (!m.length) continue;
        received += m.length;
        await client.send(
          new DeleteMessageBatchCommand({ QueueUrl: plainQueues.dlq, Entries: m.map((x, i) => ({ Id: String(i), ReceiptHandle: x.ReceiptHandle! })) }),
        );
      }
    }),
  );
  const plainPerSecond = IMPORT_N / ((performance.now() - plainStart) / 1000);

  // The connector: the same number of messages, each batch written to Postgres before it is deleted.
  const q = await queues(client);
  await fill(q.dlq);
  await createTeam(SYSTEM, { name: 'commerce' });
  const source = await sqsSource(q, 'bench-sqs', emu.endpoint, { pollers: POLLERS });
  const importStart = performance.now();
  const connectors = await startConnectorSupervisor({ only: [source.id] });
  const importedSoFar = async () => (await db().connectorHealth.findUnique({ where: { sourceId: source.id } }))?.importedTotal ?? 0n;
  while ((await importedSoFar()) < BigInt(IMPORT_N)) await new Promise((r) => setTimeout(r, 20));
  const importPerSecond = IMPORT_N / ((performance.now() - importStart) / 1000);
  const stored = await db().deadLetter.count({ where: { sourceId: source.id } });
  if (stored !== IMPORT_N) throw new Error(`imported ${stored} of ${IMPORT_N}`);
  await connectors.stop();

  await emu.stop();
  return { plainPerSecond, importPerSecond };
}

const MAP_N = 20_000;
const ROUNDS = 7;

/**
 * Messages per second of each mapping over its bodies, best of ROUNDS; the mappings take turns in
 * every round, so a noisy neighbour or a collection slows them alike.
 */
function bestRates(cases: { bodies: string[]; map: (body: string, i: number) => unknown }[]): number[] {
  const best = cases.map(() => Infinity);
  for (let round = 0; round < ROUNDS; round++) {
    cases.forEach((c, k) => {
      const start = performance.now();
      for (let i = 0; i < c.bodies.length; i++) c.map(c.bodies[i]!, i);
      best[k] = Math.min(best[k]!, performance.now() - start);
    });
  }
  return best.map((ms, k) => cases[k]!.bodies.length / (ms / 1000));
}

async function envelopeCost(plainLoopPerSecond: number): Promise<BenchResult[]> {
  const plain = Array.from({ length: MAP_N }, (_, i) => JSON.stringify({ order: i, sku: 'A-1', qty: 2, note: 'x'.repeat(200) }));
  const records = plain.map((event, i) => lambdaDestinationRecord(event, `e4b46cbf-b738-4f1a-8880-${String(i).padStart(12, '0')}`).body);
  const map = (envelope: 'auto' | 'none' | 'lambda-destination') => (body: string, i: number) =>
    toDeadLetter({ MessageId: `m-${i}`, Body: body, Attributes: { ApproximateReceiveCount: '3' } }, { envelope });
  const [none, auto, unwrapped] = bestRates([
    { bodies: plain, map: map('none') },
    { bodies: plain, map: map('auto') },
    { bodies: records, map: map('lambda-destination') },
  ]) as [number, number, number];
  return [
    {
      name: `connectors.sqs map ${MAP_N} plain events, envelope auto`,
      value: Number(auto.toFixed(0)),
      unit: 'msg/s',
      baseline: { name: 'the same with envelope none', value: Number(none.toFixed(0)) },
      target: '≥ 0.9× baseline',
      met: auto >= 0.9 * none,
    },
    {
      name: `connectors.sqs map ${MAP_N} Lambda on-failure records to their events`,
      value: Number(unwrapped.toFixed(0)),
      unit: 'msg/s',
      // Reading a record must stay far from what receiving and deleting it costs.
      baseline: { name: 'plain SDK receive+delete loop on the emulator', value: Number(plainLoopPerSecond.toFixed(0)) },
      target: '≥ 10× baseline',
      met: unwrapped >= 10 * plainLoopPerSecond,
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('sqs', import.meta.url, CHILD_FLAG, { timeoutMs: 300_000 });
  const costs = await envelopeCost(m.plainPerSecond);
  return [
    ...costs,
    importAgainst(
      `connectors.sqs import ${IMPORT_N} dead letters into Postgres`,
      [m],
      { name: 'plain SDK receive+delete loop on the same emulator', rate: (r) => r.plainPerSecond },
      { target: 0.5 },
    ),
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
