// Helpers for the runtime's integration and fault tests: sources with a test policy, a consumer
// child process, queue counts, and waiting for asynchronous outcomes (polling, never a fixed sleep).
import { afterAll, afterEach, beforeEach } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createSource } from '@/lib/sources/create-source';
import { closeDb, db, pg } from '@/lib/db';
import { UnrecoverableError, Worker } from 'bullmq';
import { closeQueues, QUEUES, producerQueue, queuePrefix } from '@/lib/queue';
import { redisConnection } from '@/lib/redis';
import { encodeBody, jobIdFor, type Envelope } from '@/lib/queue/envelope';
import { resetDatabase } from '../support/db';
import { waitFor } from '../support/wait-for';
import { killWorkerChildren, spawnWorkerChild, type WorkerChild } from '../support/worker-child';

const sourceQueues = new Set<string>();

/** Remove the queues of the sources this run made (Redis is shared; the test database is dropped anyway). */
export async function dropTestQueues(...more: string[]): Promise<void> {
  for (const name of [...sourceQueues, ...more]) await producerQueue(QUEUES.source(name)).obliterate({ force: true });
  sourceQueues.clear();
}

export async function testSource(
  name: string,
  policy: { maxReceives?: number; visibilityTimeoutMs?: number; backoffBaseMs?: number; backoffCapMs?: number; maxRedrives?: number } = {},
) {
  const team = (await db().team.findUnique({ where: { name: 'runtime' } })) ?? (await createTeam(SYSTEM, { name: 'runtime' }));
  const { backoffCapMs, ...rest } = policy;
  const source = await createSource(SYSTEM, { name, team: team.name, kind: 'builtin', ...rest });
  sourceQueues.add(name);
  if (backoffCapMs !== undefined) await db().source.update({ where: { id: source.id }, data: { backoffCapMs } });
  return source;
}

/** Tables the child's test handler writes: acknowledgements, and messages it started and hung on. */
export async function createTestTables(): Promise<void> {
  await pg()`CREATE TABLE IF NOT EXISTS runtime_acks (message_id text PRIMARY KEY, receives int NOT NULL, at timestamptz NOT NULL DEFAULT now())`;
  await pg()`CREATE TABLE IF NOT EXISTS runtime_started (message_id text PRIMARY KEY)`;
  await pg()`TRUNCATE runtime_acks, runtime_started`;
}

/** The source's jobs in each of BullMQ's states. */
export async function jobCounts(sourceName: string): Promise<Record<string, number>> {
  return producerQueue(QUEUES.source(sourceName)).getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed', 'completed');
}

/** Waiting, job by job, in BullMQ's own states: all zero once the source has nothing in flight. */
export async function inFlight(sourceName: string): Promise<number> {
  return Object.values(await jobCounts(sourceName)).reduce((a, b) => a + b, 0);
}

export { waitFor } from '../support/wait-for';

/** The test consumer (runtime-consumer-child.ts), or another `script`, as a child process. */
export function spawnConsumer(extraEnv: Record<string, string> = {}, script = 'test/integration/runtime-consumer-child.ts'): WorkerChild {
  return spawnWorkerChild(script, extraEnv);
}

/**
 * The hooks of a suite that runs consumer children on the shared test database: a reset database
 * with the test tables before each test, no child left running after it, and the run's queues
 * dropped and pools closed at the end.
 */
export function runtimeTestLifecycle(): void {
  beforeEach(async () => {
    await resetDatabase();
    await createTestTables();
  });
  afterEach(killWorkerChildren);
  afterAll(async () => {
    await dropTestQueues();
    await closeQueues();
    await closeDb();
  });
}

/** Messages that failed in a source queue with no sweeper running: what a crashed consumer leaves. */
export async function failedJobs(source: string, messages: { messageId: string; body: Uint8Array }[]): Promise<void> {
  const queue = producerQueue(QUEUES.source(source));
  const enqueuedAt = new Date().toISOString();
  for (let i = 0; i < messages.length; i += 50) {
    await queue.addBulk(
      messages.slice(i, i + 50).map((m) => {
        const data: Envelope = { body: encodeBody(m.body), headers: {}, messageId: m.messageId, enqueuedAt, redriveCount: 0 };
        return { name: 'message.deliver', data, opts: { jobId: jobIdFor(m.messageId, 0), removeOnFail: false } };
      }),
    );
  }
  const connection = redisConnection('worker');
  const worker = new Worker(
    QUEUES.source(source),
    async () => {
      throw new UnrecoverableError('the consumer crashed after parking it');
    },
    { connection, prefix: queuePrefix(), concurrency: 1 },
  );
  await waitFor(`${messages.length} failed jobs`, async () => (await queue.getFailedCount()) === messages.length, 60_000);
  await worker.close();
  await connection.quit();
}
