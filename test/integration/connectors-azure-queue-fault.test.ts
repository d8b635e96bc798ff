// Faults of the Azure Storage queue connector against Azurite: the connectors process SIGKILLed over
// and over while it imports 10,000 poison messages loses none and writes none twice (what a killed
// process had received but not deleted reappears after the visibility timeout, 10 s here, with the
// same message id, and the unique key absorbs it); Azurite stopped and started mid-import, and the
// import resumes by itself. Each test has its own Azurite: in memory for the first (faster), with its
// data in a folder for the second (a stop keeps the queues).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startConnectorSupervisor, type ConnectorSupervisor } from '@/lib/connectors/supervisor';
import { closeDb, db } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { resetDatabase } from '../support/db';
import { expectImportedOnce, imported, waitFor, importThroughKills } from './connectors-rabbitmq-support';
import { azureSource, depth, queues, sendAll, startAzurite, type Azurite } from './connectors-azure-support';
import { killWorkerChildren } from '../support/worker-child';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** `n` base64 poison messages of random bytes (some empty). */
const poisonBytes = (n: number) => Array.from({ length: n }, (_, i) => (i % 101 === 0 ? Buffer.alloc(0) : randomBytes(16 + (i % 300))));

/** `n` poison messages on a new queue; their SHA-256 by message id. */
async function poisoned(azurite: Azurite, n: number) {
  const q = await queues(azurite);
  const bytes = poisonBytes(n);
  const ids = await sendAll(
    q.poison,
    bytes.map((b) => b.toString('base64')),
  );
  return { q, sent: new Map(ids.map((id, i) => [id, sha(bytes[i]!)])) };
}

/**
 * Sends `bytes` as base64 poison messages in chunks, at most `lead` ahead of what the import
 * recorded (it waits on that count), as an application's failures fill a poison queue while Triage
 * drains it; records each message's SHA-256 by id in `sent`.
 */
async function feed(queue: Parameters<typeof sendAll>[0], bytes: Buffer[], sent: Map<string, string>, lead: number, recorded: () => Promise<number>) {
  const CHUNK = 250;
  for (let from = 0; from < bytes.length; from += CHUNK) {
    if (from + CHUNK > lead) await waitFor(`the import within ${lead} of ${from}`, async () => from + CHUNK - (await recorded()) <= lead, 600_000, 100);
    const chunk = bytes.slice(from, from + CHUNK);
    const ids = await sendAll(
      queue,
      chunk.map((b) => b.toString('base64')),
    );
    for (const [i, id] of ids.entries()) sent.set(id, sha(chunk[i]!));
  }
}

describe('Azure Storage queue connector under faults', () => {
  let azurite: Azurite | undefined;
  let connectors: ConnectorSupervisor | undefined;
  beforeEach(resetDatabase);
  afterEach(async () => {
    await connectors?.stop();
    connectors = undefined;
    await killWorkerChildren();
    await azurite?.stop();
    azurite = undefined;
  });
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

  // Azurite reads every message of the queue for each request (a receive sorts the visible ones, a
  // delete looks for expired ones first), so draining a queue of n costs it n²: 10,000 sent at once,
  // the import made 4 messages a second at a depth of 9,000 on the shared 2-core machine. The
  // messages are sent while the import runs, at most FEED_LEAD ahead of it, as failures fill a poison
  // queue while Triage drains it: the kills, the import and the check of all of them are the same, on
  // a shallower queue. Azurite has one thread: at a load average of 15–20 this took it 13 minutes.
  // AZURE_FAULT_N sets another count.
  it('loses nothing and writes nothing twice while the connectors process is SIGKILLed during an import', { timeout: 1_800_000 }, async () => {
    const N = Number(process.env.AZURE_FAULT_N ?? 10_000);
    const FEED_LEAD = 1_000;
    azurite = await startAzurite({ inMemory: true });
    const q = await queues(azurite);
    // Long enough that a slow receive-write-delete round on the shared machine is not handed out twice.
    const source = await azureSource(q, `kill-${randomBytes(3).toString('hex')}`, azurite, { visibilityTimeoutSeconds: 10, encoding: 'base64' });
    const sent = new Map<string, string>();
    const feeding = feed(q.poison, poisonBytes(N), sent, FEED_LEAD, () => imported(source.id));
    // Awaited below; a failure meanwhile fails the kills' waits.
    feeding.catch(() => undefined);
    await waitFor('the first messages sent', async () => sent.size >= Math.min(N, FEED_LEAD), 120_000, 50);

    const midImport = await importThroughKills({ kills: 5, maxPauseMs: 1_000, total: N, imported: () => imported(source.id) });
    expect(midImport).toBeGreaterThanOrEqual(3);
    await feeding;
    expect(sent.size).toBe(N);
    await waitFor(`${N} imported`, async () => (await imported(source.id)) === N, 1_500_000, 500);
    await waitFor('the poison queue empty', async () => (await depth(q.poison)) === 0, 60_000, 500);
    await expectImportedOnce(source.id, sent, N);
  });

  it('resumes by itself when Azurite is stopped and started mid-import', { timeout: 600_000 }, async () => {
    const N = 2_000;
    azurite = await startAzurite();
    const { q, sent } = await poisoned(azurite, N);
    const source = await azureSource(q, 'orders-restart', azurite, { encoding: 'base64' });
    connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500, backoffBaseMs: 200, backoffCapMs: 2_000 });
    await waitFor('the import under way', async () => (await imported(source.id)) >= 200, 120_000, 50);

    await azurite.halt();
    const down = await waitFor(
      'the outage on the source health',
      async () => {
        const h = await db().connectorHealth.findUnique({ where: { sourceId: source.id } });
        return h?.lastError && h.consecutiveFailures > 0 ? h : null;
      },
      60_000,
      100,
    );
    expect(down.lastError).toMatch(/is not reachable|is unavailable/);
    expect(await imported(source.id)).toBeLessThan(N);
    await new Promise((r) => setTimeout(r, 2_000));
    await azurite.resume();

    await waitFor(`${N} imported`, async () => (await imported(source.id)) === N, 300_000, 250);
    await waitFor('the poison queue empty', async () => (await depth(q.poison)) === 0, 60_000, 250);
    await expectImportedOnce(source.id, sent, N);
    await waitFor(
      'healthy again',
      async () => (await db().connectorHealth.findUniqueOrThrow({ where: { sourceId: source.id } })).consecutiveFailures === 0,
      30_000,
      250,
    );
  });
});
