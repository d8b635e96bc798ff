// The Azure Storage queue connector: import throughput from a poison queue into Postgres (each batch
// committed through recordDeadLetters, then deleted by pop receipt) against a plain SDK loop that
// receives and deletes the same number of messages with the same number of receives at once, on the
// same Azurite, in the same run (target ≥ 0.5×); and redrive pacing measured at a reader of the
// target queue (target ±5% of the requested rate; BENCH_AZURE_RATES to ask others), beside a plain
// SDK sendMessage loop with the runner's batches in flight at once: Azurite's own ceiling, which tells
// a pacing figure limited by the emulator from one limited by the runner. Runs Azurite from
// test/peers/azurite (installed on first use), in memory.
//   npx tsx test/bench/run.ts azure
import { randomBytes } from 'node:crypto';
import type { BenchResult } from './run';
import { measureRedrivePacingWhileReading, redrivePacingResults, type RedriveFigure } from './connector-redrive';
import { importAgainst, measureWhenFlagged, runBenchChild } from './support';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db } from '@/lib/db';
import { azureSource, queues, sendAll, startAzurite } from '../integration/connectors-azure-support';
import { waitFor } from '../support/wait-for';

const CHILD_FLAG = '--azure-bench-child';
const POLLERS = 4;
// Azurite takes about a thousand sends a second on an idle core and far fewer on a loaded machine:
// the rates stay well under that, so the figure is the redrive's pacing, not the emulator's ceiling.
const REDRIVE_RATES = (process.env.BENCH_AZURE_RATES ?? '10,25,100').split(',').map(Number);
const REDRIVE_SECONDS = 6;
// Enough dead letters for every rate's redrive.
const IMPORT_N = Math.max(
  1_000,
  REDRIVE_RATES.reduce((a, r) => a + r * REDRIVE_SECONDS, 0),
);
/** The redrive runner's batches in flight at once (lib/redrive/run-task.ts MAX_IN_FLIGHT). */
const SENDS_AT_ONCE = 8;

interface Measured {
  plainPerSecond: number;
  plainSendPerSecond: number;
  importPerSecond: number;
  redrive: RedriveFigure[];
}

async function child(): Promise<Measured> {
  const azurite = await startAzurite({ inMemory: true });
  const t0 = performance.now();
  const texts = () =>
    Array.from({ length: IMPORT_N }, (_, i) =>
      Buffer.from(JSON.stringify({ order: i, sku: 'A-1', qty: 2, note: randomBytes(48).toString('hex') })).toString('base64'),
    );

  // Baseline: receive and delete, nothing else, with the connector's number of receives at once.
  const plain = await queues(azurite);
  await sendAll(plain.poison, texts());
  process.stderr.write(`filled ${IMPORT_N} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  let received = 0;
  const plainStart = performance.now();
  await Promise.all(
    Array.from({ length: POLLERS }, async () => {
      while (received < IMPORT_N) {
        const r = await plain.poison.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 120 });
        if (!r.receivedMessageItems.length) continue;
        received += r.receivedMessageItems.length;
        await Promise.all(r.receivedMessageItems.map((m) => plain.poison.deleteMessage(m.messageId, m.popReceipt)));
      }
    }),
  );
  const plainPerSecond = IMPORT_N / ((performance.now() - plainStart) / 1000);
  process.stderr.write(`plain receive+delete ${plainPerSecond.toFixed(0)} msg/s\n`);

  // The connector: the same number of messages, each batch written to Postgres before it is deleted.
  const q = await queues(azurite);
  await sendAll(q.poison, texts());
  const source = await azureSource(q, 'bench-azure', azurite, { pollers: POLLERS, encoding: 'base64' });
  const importStart = performance.now();
  const connectors = await startConnectorSupervisor({ only: [source.id] });
  await waitFor('the import', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === IMPORT_N, 600_000, 20);
  const importPerSecond = IMPORT_N / ((performance.now() - importStart) / 1000);
  process.stderr.write(`import ${importPerSecond.toFixed(0)} msg/s\n`);
  await connectors.stop();

  // Redrive pacing, measured where the function would read: one reader of the target queue that
  // keeps what it read hidden rather than deleting it, so Azurite's few requests a second go to the sends.
  const redrive = await measureRedrivePacingWhileReading(source.id, REDRIVE_RATES, REDRIVE_SECONDS, async (arrived) => {
    const r = await q.target.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 3_600 });
    arrived(r.receivedMessageItems.length);
    if (!r.receivedMessageItems.length) await new Promise((res) => setTimeout(res, 20));
  });

  // The emulator's ceiling for the redrive: a plain SDK sendMessage loop, as many at once as the
  // runner's batches in flight, into a queue of its own.
  const sends = await queues(azurite);
  const plainSends = texts().slice(0, 600);
  let sentNext = 0;
  const sendStart = performance.now();
  await Promise.all(
    Array.from({ length: SENDS_AT_ONCE }, async () => {
      for (let i = sentNext++; i < plainSends.length; i = sentNext++) await sends.target.sendMessage(plainSends[i]!);
    }),
  );
  const plainSendPerSecond = plainSends.length / ((performance.now() - sendStart) / 1000);
  process.stderr.write(`plain sendMessage, ${SENDS_AT_ONCE} at once: ${plainSendPerSecond.toFixed(0)} msg/s\n`);

  await azurite.stop();
  return { plainPerSecond, plainSendPerSecond, importPerSecond, redrive };
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('azure', import.meta.url, CHILD_FLAG, { timeoutMs: 300_000 });
  return [
    importAgainst(
      `connectors.azure_queue import ${IMPORT_N} poison messages into Postgres`,
      [m],
      { name: 'plain @azure/storage-queue receive+delete loop on the same Azurite', rate: (r) => r.plainPerSecond },
      { target: 0.5 },
    ),
    ...redrivePacingResults('azure_queue', 'msg/s', m.redrive),
    {
      name: `connectors.azure_queue plain @azure/storage-queue sendMessage loop, ${SENDS_AT_ONCE} at once (the emulator's ceiling for a redrive; information)`,
      value: Number(m.plainSendPerSecond.toFixed(0)),
      unit: 'msg/s',
    },
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
