// The SQS connector: import throughput from a dead-letter queue into Postgres (every batch committed
// through recordDeadLetters, then deleted by receipt handle) against a plain SDK receive+delete loop
// on the same emulator, with the same number of receives at once, in the same run (target ≥ 0.5×).
// Runs fauxqs from test/peers/sqs (installed on first use).
//   npx tsx test/bench/run.ts sqs
import type { BenchResult } from './run';
import { runBenchChild, runWhenFlagged } from './support';

const CHILD_FLAG = '--sqs-bench-child';
const IMPORT_N = 5_000;
const POLLERS = 4;

interface Measured {
  plainPerSecond: number;
  importPerSecond: number;
}

async function child(): Promise<void> {
  const { randomBytes } = await import('node:crypto');
  const { DeleteMessageBatchCommand, ReceiveMessageCommand, SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const { SYSTEM } = await import('@/lib/auth');
  const { createTeam } = await import('@/lib/admin/teams');
  const { startConnectorSupervisor } = await import('@/lib/connectors/supervisor');
  const { closeDb, db } = await import('@/lib/db');
  const { closeQueues } = await import('@/lib/queue');
  const { queues, sqsSource, startEmulator } = await import('../integration/connectors-sqs-support');

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
        const r = await client.send(new ReceiveMessageCommand({ QueueUrl: plainQueues.dlq, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }));
        const m = r.Messages ?? [];
        if (!m.length) continue;
        received += m.length;
        await client.send(new DeleteMessageBatchCommand({ QueueUrl: plainQueues.dlq, Entries: m.map((x, i) => ({ Id: String(i), ReceiptHandle: x.ReceiptHandle! })) }));
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
  await closeQueues();
  await closeDb();
  process.stdout.write(`${JSON.stringify({ plainPerSecond, importPerSecond } satisfies Measured)}\n`);
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('sqs', import.meta.url, CHILD_FLAG, { timeoutMs: 300_000 });
  return [
    {
      name: `connectors.sqs import ${IMPORT_N} dead letters into Postgres`,
      value: Number(m.importPerSecond.toFixed(0)),
      unit: 'msg/s',
      baseline: { name: 'plain SDK receive+delete loop on the same emulator', value: Number(m.plainPerSecond.toFixed(0)) },
      target: '≥ 0.5× baseline',
      met: m.importPerSecond >= 0.5 * m.plainPerSecond,
    },
  ];
}

runWhenFlagged(CHILD_FLAG, child);
