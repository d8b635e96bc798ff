// Fault test of the SQS connector: the connectors process SIGKILLed over and over while it imports
// from the emulator's DLQ loses none and writes none twice. What a killed process had received but not
// deleted reappears after the visibility timeout (2 s here) and is recognised by the unique key.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { closeDb, pg } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { resetDatabase } from '../support/db';
import { waitFor, importThroughKills } from './connectors-rabbitmq-support';
import { queueCounts, queues, sqsSource, startEmulator, type Emulator } from './connectors-sqs-support';
import { killWorkerChildren } from '../support/worker-child';

const N = 6_000;

async function imported(sourceId: string): Promise<number> {
  const [r] = await pg()<{ n: number }[]>`SELECT count(*)::int AS n FROM dead_letters WHERE source_id = ${sourceId}::uuid`;
  return r!.n;
}

describe('SQS connector under faults', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startEmulator();
  });
  beforeEach(resetDatabase);
  afterEach(killWorkerChildren);
  afterAll(async () => {
    await emu?.stop();
    await closeQueues();
    await closeDb();
  });

  it('loses nothing and writes nothing twice while the connectors process is SIGKILLed during import', { timeout: 240_000 }, async () => {
    const q = await queues(emu.client);
    const sent = new Set<string>();
    for (let i = 0; i < N; i += 10) {
      const res = await emu.client.send(
        new SendMessageBatchCommand({
          QueueUrl: q.dlq,
          Entries: Array.from({ length: 10 }, (_, j) => ({ Id: String(j), MessageBody: JSON.stringify({ order: i + j }) })),
        }),
      );
      for (const s of res.Successful ?? []) sent.add(s.MessageId!);
    }
    expect(sent.size).toBe(N);
    const source = await sqsSource(q, `kill-${randomBytes(3).toString('hex')}`, emu.endpoint, { visibilityTimeoutSeconds: 2 });

    const midImport = await importThroughKills({ kills: 5, maxPauseMs: 300, total: N, imported: () => imported(source.id) });
    expect(midImport).toBeGreaterThanOrEqual(3);
    await waitFor(`${N} imported`, async () => (await imported(source.id)) === N, 120_000, 250);
    await waitFor(
      'the DLQ empty',
      async () => {
        const c = await queueCounts(emu.client, q.dlq);
        return c.visible === 0 && c.inFlight === 0;
      },
      30_000,
      250,
    );

    const rows = await pg()<{ message_id: string; n: number }[]>`
      SELECT message_id, count(*)::int AS n FROM dead_letters WHERE source_id = ${source.id}::uuid GROUP BY message_id`;
    expect(rows.filter((r) => r.n > 1)).toEqual([]);
    expect(rows.length).toBe(N);
    expect(rows.filter((r) => !sent.has(r.message_id))).toEqual([]);
  });
});
