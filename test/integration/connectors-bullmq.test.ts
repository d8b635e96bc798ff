// The BullMQ connector against the real Redis (127.0.0.1:6379, shared: every key here lives under
// a prefix of this run, removed afterwards; never FLUSHALL) and the real Postgres. A real BullMQ
// application (Queue + Worker in this process) fails jobs; Triage imports them, redrives them, and
// the application's next failures come back as the next generation.
import { createHash } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { cliCreateSource } from '../support/cli';
import { SYSTEM, type Actor } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { connectorSourceOf, ConnectorError } from '@/lib/connectors';
import { startConnectorSupervisor, type ConnectorSupervisor } from '@/lib/connectors/supervisor';
import { closeDb, db, pg } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { destinationFor } from '@/lib/redrive/destinations';
import { startRedriveSupervisor, type RedriveSupervisor } from '@/lib/redrive/supervisor';
import { resetDatabase } from '../support/db';
import {
  commerceConnectorSource,
  waitForFailing,
  waitForHealthyAgain,
  importThroughKills,
  startRedriveNoBreaker,
  expectUnreachable,
} from './connectors-rabbitmq-support';
import { person, waitForTask } from './redrive-support';
import { killWorkerChildren } from '../support/worker-child';
import { waitFor } from './runtime-support';

const REDIS_URL = 'redis://127.0.0.1:6379';
const PREFIX = `tbq${process.pid}x${Date.now().toString(36)}`;
const RUNNER = { reconcileMs: 200, settleMs: 3_000, statusPollMs: 100 };

const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** The application: a queue and a worker whose handler version decides which jobs fail. */
interface App {
  queue: Queue;
  worker: Worker;
  /** v1 fails every job; v2 ("the fix") fails only jobs whose n is a multiple of 4. */
  version: 'v1' | 'v2';
  completed: Set<string>;
  close(): Promise<void>;
}

let queues = 0;
const apps: App[] = [];

async function app(name = `orders${++queues}`, attempts = 2): Promise<App> {
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
  const queue = new Queue(name, { connection, prefix: PREFIX, defaultJobOptions: { attempts, backoff: { type: 'fixed', delay: 1 } } });
  const a: App = {
    queue,
    version: 'v1',
    completed: new Set(),
    worker: new Worker(
      name,
      async (job: Job<{ n: number }>) => {
        if (a.version === 'v1' || job.data.n % 4 === 0) {
          // A handler bug: reading a field the message does not have.
          (job.data as unknown as { customer: { id: string } }).customer.id.toString();
        }
        return 'ok';
      },
      { connection, prefix: PREFIX, concurrency: 50 },
    ),
    async close() {
      await a.worker.close();
      await queue.close();
    },
  };
  a.worker.on('completed', (job) => a.completed.add(job.id!));
  a.worker.on('error', () => {});
  await queue.waitUntilReady();
  apps.push(a);
  return a;
}

async function failedCount(a: App) {
  return (await a.queue.getJobCounts('failed')).failed ?? 0;
}

async function addJobs(a: App, n: number, from = 0) {
  for (let start = 0; start < n; start += 1_000) {
    const jobs = [];
    for (let i = start; i < Math.min(n, start + 1_000); i++) jobs.push({ name: 'order.placed', data: { n: from + i, note: `order ${from + i} · ü` } });
    await a.queue.addBulk(jobs);
  }
}

/** An application whose `n` jobs have all failed (after `attempts` each): waits until BullMQ counts them failed. */
async function appWithFailedJobs(n: number, attempts = 1, timeoutMs = 30_000): Promise<App> {
  const a = await app(undefined, attempts);
  await addJobs(a, n);
  await waitFor(`${n.toLocaleString('en')} failed jobs`, async () => (await failedCount(a)) === n, timeoutMs);
  return a;
}

let actor: Actor;
let sources = 0;

async function bullmqSource(queue: string, connection: Record<string, unknown> = {}, url = REDIS_URL) {
  return commerceConnectorSource({
    name: `shop-${++sources}`,
    kind: 'bullmq',
    maxRedrives: 3,
    connection: { queue, prefix: PREFIX, pollMs: 500, ...connection },
    secret: { url },
  });
}

async function connectorOf(sourceId: string) {
  const row = await db().source.findUniqueOrThrow({ where: { id: sourceId } });
  return connectorSourceOf(row);
}

async function rows(sourceId: string, generation?: number) {
  return db().deadLetter.findMany({ where: { sourceId, ...(generation === undefined ? {} : { generation }) }, orderBy: { id: 'asc' } });
}

async function health(sourceId: string) {
  return db().connectorHealth.findUnique({ where: { sourceId } });
}

let supervisor: ConnectorSupervisor | undefined;
let redrives: RedriveSupervisor | undefined;

describe('BullMQ connector', () => {
  beforeEach(async () => {
    await resetDatabase();
    await createTeam(SYSTEM, { name: 'commerce' });
    actor = await person('support@test.local', 'support', 'commerce');
  });
  afterEach(async () => {
    await killWorkerChildren();
    await supervisor?.stop();
    await redrives?.stop();
    supervisor = redrives = undefined;
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  afterAll(async () => {
    // Only this run's keys.
    for (let cursor = '0'; ; ) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      if ((cursor = next) === '0') break;
    }
    redis.disconnect();
    await closeQueues();
    await closeDb();
  });

  it('imports 2,000 failed jobs exactly; a redrive after a fix completes the fixed ones, the others come back as the next generation', async () => {
    const a = await appWithFailedJobs(2_000, 2, 60_000);
    const source = await bullmqSource(a.queue.name);
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });

    await waitFor('all imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 2_000, 60_000);
    const imported = await rows(source.id);
    // Each payload is the job data's stored JSON, byte for byte.
    const stored = await Promise.all(imported.map((d) => redis.hgetBuffer(`${PREFIX}:${a.queue.name}:${d.messageId}`, 'data')));
    for (const [k, d] of imported.entries()) expect(d.payloadSha256).toBe(sha(stored[k]!));
    const job = (await a.queue.getJob(imported[7]!.messageId))!;
    const d7 = imported[7]!;
    expect(JSON.parse(Buffer.from(d7.payload!).toString('utf8'))).toEqual(job.data);
    expect(d7).toMatchObject({
      generation: 0,
      contentType: 'application/json',
      reason: 'MaxReceives',
      errorType: 'TypeError',
      errorMessage: job.failedReason,
      errorStack: job.stacktrace!.at(-1),
      receiveCount: 2,
      redriveCount: 0,
      status: 'open',
    });
    expect(d7.enqueuedAt!.getTime()).toBe(job.timestamp);
    expect(d7.deadAt.getTime()).toBe(job.finishedOn);
    expect(d7.headers).toMatchObject({
      'bullmq.jobId': job.id,
      'bullmq.name': 'order.placed',
      'bullmq.attempts': 2,
      'bullmq.backoff': { type: 'fixed', delay: 1 },
    });
    // The first attempt's failure is history; the last one is the dead letter's own.
    expect(d7.failureHistory).toEqual([
      { reason: 'attempt', errorType: 'TypeError', errorMessage: job.failedReason, count: 1, firstAt: '', lastAt: '' },
      expect.objectContaining({ reason: 'MaxReceives', errorType: 'TypeError', count: 1 }),
    ]);
    // Left in place by default: the application's failed set is as it was.
    expect(await failedCount(a)).toBe(2_000);
    await waitFor('health: imported 2,000, nothing left', async () => {
      const h = await health(source.id);
      return h?.importedTotal === 2_000n && h.lag === 0n && h.lastSuccessAt ? h : undefined;
    });

    // A restarted import rereads the failed set and records nothing new.
    await supervisor.stop();
    const restarted = new Date();
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('a poll after the restart', async () => ((await health(source.id))!.lastPollAt! > restarted ? true : undefined), 10_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(2_000);

    // The fix: v2 fails only every fourth order. Redrive all 2,000 in place.
    a.version = 'v2';
    redrives = await startRedriveSupervisor(RUNNER);
    // A short outcome window: a job not seen failed again by then counts as "no death seen".
    // One in four fails again on purpose.
    const t = await startRedriveNoBreaker(actor, { selection: { source: source.name }, ratePerSecond: 2_000, outcomeWindowSeconds: 15 });
    await waitForTask(t.id, 'all sent', (x) => x.sent === 2_000);
    await waitFor('1,500 completed by the app', async () => a.completed.size === 1_500, 60_000);
    await waitFor(
      '500 dead again, as generation 1',
      async () => (await db().deadLetter.count({ where: { sourceId: source.id, generation: 1 } })) === 500,
      60_000,
    );
    const again = await rows(source.id, 1);
    for (const d of again) expect((JSON.parse(Buffer.from(d.payload!).toString()) as { n: number }).n % 4).toBe(0);
    // Triage's count of its own redrives of the job: the loop guard's.
    expect(new Set(again.map((d) => d.redriveCount))).toEqual(new Set([1]));
    const task = await waitForTask(t.id, 'the task counts 500 dead again', (x) => x.deadAgain === 500, 30_000);
    expect(task).toMatchObject({ sent: 2_000, deadAgain: 500, failed: 0, skipped: 0 });
    const final = await waitForTask(t.id, 'the task completed', (x) => x.status === 'completed', 90_000);
    expect(final).toMatchObject({ sent: 2_000, deadAgain: 500, noDeathSeen: 1_500, acknowledged: 0 });
  }, 300_000);

  it('removes imported jobs when the source says so; a redrive adds copies, whose failures come back as the next generation', async () => {
    const a = await appWithFailedJobs(200);
    const source = await bullmqSource(a.queue.name, { removeAfterImport: true });
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor(
      'all imported and removed',
      async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 200 && (await failedCount(a)) === 0,
      30_000,
    );
    const ids = (await rows(source.id)).map((d) => d.messageId);
    expect(await Promise.all(ids.slice(0, 5).map((id) => a.queue.getJob(id)))).toEqual([undefined, undefined, undefined, undefined, undefined]);

    a.version = 'v2';
    redrives = await startRedriveSupervisor(RUNNER);
    const t = await startRedrive(actor, { selection: { source: source.name }, ratePerSecond: 1_000 });
    await waitFor('150 copies completed', async () => a.completed.size === 150, 30_000);
    // Copies of integer ids are "triage-copy-<id>": the same message to Triage.
    expect([...a.completed].every((id) => id.startsWith('triage-copy-'))).toBe(true);
    await waitFor(
      '50 dead again as generation 1, removed again',
      async () => (await db().deadLetter.count({ where: { sourceId: source.id, generation: 1 } })) === 50 && (await failedCount(a)) === 0,
      30_000,
    );
    const again = await rows(source.id, 1);
    for (const d of again) {
      expect(ids).toContain(d.messageId);
      expect(d.headers).toMatchObject({ 'bullmq.jobId': `triage-copy-${d.messageId}`, 'bullmq.name': 'order.placed' });
      expect(d.redriveCount).toBe(1);
    }
    await waitForTask(t.id, 'the task counts 50 dead again', (x) => x.deadAgain === 50, 30_000);
  });

  it('a source switched to remove-after-import removes the jobs it already recorded, recording nothing twice', async () => {
    const a = await appWithFailedJobs(100);
    const source = await bullmqSource(a.queue.name);
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('all imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 100, 30_000);
    expect(await failedCount(a)).toBe(100);
    // As after a crash between a batch's commit and its removal: recorded, still in the failed set.
    await db().source.update({ where: { id: source.id }, data: { connection: { queue: a.queue.name, prefix: PREFIX, pollMs: 500, removeAfterImport: true } } });
    await waitFor('removed', async () => (await failedCount(a)) === 0, 30_000);
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(100);
    expect(await db().deadLetter.count({ where: { sourceId: source.id, generation: { gt: 0 } } })).toBe(0);
  });

  it('walks a failed set whose jobs share failure times (more than a page at one score) exactly once', async () => {
    // Failed jobs as BullMQ stores them, written directly: 2,500 at three milliseconds.
    const queue = `ties${++queues}`;
    const base = `${PREFIX}:${queue}`;
    const t = Date.now() - 60_000;
    await redis.hset(`${base}:meta`, 'opts.maxLenEvents', '10000');
    const m = redis.multi();
    for (let i = 1; i <= 2_500; i++) {
      const at = t + (i <= 1_000 ? 0 : i <= 2_200 ? 1 : 2);
      m.hset(`${base}:${i}`, {
        name: 'tie',
        data: JSON.stringify({ i }),
        opts: '{"attempts":1}',
        timestamp: String(t - 10),
        finishedOn: String(at),
        failedReason: 'boom',
        stacktrace: '["Error: boom"]',
        atm: '1',
      });
      m.zadd(`${base}:failed`, at, String(i));
    }
    await m.exec();
    const source = await bullmqSource(queue, { batchSize: 400 });
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('2,500 imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 2_500, 30_000);
    await new Promise((r) => setTimeout(r, 1_500)); // more looks: nothing more
    const all = await pg()<{ n: number; distinct: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS distinct FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    expect(all[0]).toEqual({ n: 2_500, distinct: 2_500 });
    expect((await health(source.id))?.lag).toBe(0n);
  });

  it('loses and duplicates nothing when the connectors process is SIGKILLed again and again while importing 10,000 failed jobs', async () => {
    const a = await appWithFailedJobs(10_000, 1, 120_000);
    await a.close();
    const source = await bullmqSource(a.queue.name, { batchSize: 200 });
    const count = () => db().deadLetter.count({ where: { sourceId: source.id } });
    // Eight children, each killed mid-import (a moment after its first batch committed), then one
    // left to finish: the kills do not depend on how fast a child boots on a loaded machine.
    const kills = await importThroughKills({ kills: 8, maxPauseMs: 300, total: 10_000, imported: count });
    await waitFor('10,000 imported', async () => (await count()) === 10_000, 120_000, 250);
    expect(kills).toBeGreaterThanOrEqual(3);
    const all = await pg()<{ n: number; distinct: number; maxGen: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS distinct, max(generation)::int AS "maxGen" FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    expect(all[0]).toEqual({ n: 10_000, distinct: 10_000, maxGen: 0 });
    // Every job's failure is there, each once.
    const jobIds = await redis.zrange(`${PREFIX}:${a.queue.name}:failed`, '0', '-1');
    const messageIds = new Set((await db().deadLetter.findMany({ where: { sourceId: source.id }, select: { messageId: true } })).map((d) => d.messageId));
    expect(jobIds.filter((id) => !messageIds.has(id))).toEqual([]);
  }, 300_000);

  it("wakes on the application's failed events, not on its poll", async () => {
    const a = await appWithFailedJobs(1);
    const source = await bullmqSource(a.queue.name, { pollMs: 600_000 });
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('the first imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 1);
    // Idle now, with a poll ten minutes away: the next failure must arrive by its event.
    await new Promise((r) => setTimeout(r, 500));
    await addJobs(a, 5, 1);
    await waitFor('the next five imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 6, 15_000);
  });

  it('takes a source from the CLI contract (--kind bullmq --redis-url --queue --prefix) and imports from it', async () => {
    const a = await appWithFailedJobs(20);
    const cli = cliCreateSource('bullmq', ['--name', 'cli-shop', '--redis-url', REDIS_URL, '--queue', a.queue.name, '--prefix', PREFIX, '--json']);
    expect(cli.status, cli.stderr).toBe(0);
    const created = JSON.parse(cli.stdout) as { id: string };
    const row = await db().source.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.connection).toMatchObject({ queue: a.queue.name, prefix: PREFIX, removeAfterImport: false });
    expect(Buffer.from(row.connectionSecret!).toString('latin1')).not.toContain('127.0.0.1');
    supervisor = await startConnectorSupervisor({ only: [row.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('20 imported', async () => (await db().deadLetter.count({ where: { sourceId: row.id } })) === 20, 30_000);
  });

  it("reconnects by itself when Redis closes the import's connections mid-import, and finishes", async () => {
    const a = await appWithFailedJobs(3_000, 1, 60_000);
    // Small batches and a close look: on a quiet machine batches of 100 imported the 3,000 between
    // two looks 300 ms apart, before a second kill.
    const source = await bullmqSource(a.queue.name, { batchSize: 20 });
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100, backoffCapMs: 400 });
    const count = () => db().deadLetter.count({ where: { sourceId: source.id } });
    let killed = 0;
    while ((await count()) < 3_000) {
      // Only this source's connections (named triage:<source>:…): the Redis is shared.
      const list = (await redis.client('LIST')) as string;
      const ids = list
        .split('\n')
        .filter((l) => l.includes(` name=triage:${source.name}:`))
        .map((l) => /\bid=(\d+)/.exec(l)![1]!);
      if ((await count()) > 0 && ids.length > 0 && killed < 5) {
        for (const id of ids) await redis.client('KILL', 'ID', id);
        killed++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(killed).toBeGreaterThanOrEqual(2);
    expect(await db().deadLetter.count({ where: { sourceId: source.id, generation: 0 } })).toBe(3_000);
    const h = await waitForHealthyAgain(source.id);
    expect(h.lastError).toMatch(/Redis at redis:\/\/127\.0\.0\.1:6379.*(unreachable|closed)/);
  });

  it('says what is wrong: Redis unreachable, a queue that does not exist', async () => {
    const a = await app();
    const down = await bullmqSource(a.queue.name, {}, 'redis://:s3cret-pass@127.0.0.1:1');
    const missing = await bullmqSource('no-such-queue');
    const fine = await bullmqSource(a.queue.name);

    const d = await connectorOf(down.id);
    const pd = await d.connector.probe(d.source);
    expect(pd).toMatchObject({ ok: false, facts: { reachable: false } });
    expect(pd.error).toMatch(/Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1 is unreachable/);
    expect(JSON.stringify(pd)).not.toContain('s3cret-pass');

    const m = await connectorOf(missing.id);
    const pm = await m.connector.probe(m.source);
    expect(pm).toMatchObject({ ok: false, facts: { reachable: true, exists: false } });
    expect(pm.error).toMatch(/No such queue: BullMQ queue "no-such-queue"/);

    const f = await connectorOf(fine.id);
    await addJobs(a, 3);
    await waitFor('3 failed', async () => (await failedCount(a)) === 3);
    expect(await f.connector.probe(f.source)).toMatchObject({ ok: true, facts: { exists: true, failed: 3, workers: 1 } });

    // The import: a clear error (ConnectorError), never a crash; the supervisor shows it on the health.
    await expect(d.connector.openImport(d.source, { record: async () => [], health: () => {} }, new AbortController().signal)).rejects.toBeInstanceOf(
      ConnectorError,
    );
    await expect(m.connector.openImport(m.source, { record: async () => [], health: () => {} }, new AbortController().signal)).rejects.toThrow(
      /No such BullMQ queue/,
    );
    supervisor = await startConnectorSupervisor({ only: [down.id, missing.id], discoveryMs: 200, backoffBaseMs: 100, backoffCapMs: 500 });
    const [hd, hm] = await waitForFailing([down.id, missing.id]);
    expect(hd.lastError).toMatch(/unreachable/);
    expect(hd.lastError).not.toContain('s3cret-pass');
    expect(hm.lastError).toMatch(/No such BullMQ queue/);
  });

  it('records job data exactly when it is a string, megabytes, or not JSON at all', async () => {
    const a = await app(undefined, 1);
    const big = { blob: 'x'.repeat(5 * 1024 * 1024) };
    await a.queue.add('text', 'just a string' as unknown as { n: number });
    await a.queue.add('big', big as unknown as { n: number });
    await a.queue.add('raw', { n: 1 });
    await waitFor('3 failed', async () => (await failedCount(a)) === 3, 30_000);
    // An application that wrote its own bytes into the job hash (not JSON).
    const [rawId] = (await a.queue.getFailed()).filter((j) => j.name === 'raw').map((j) => j.id!);
    const rawBytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    await redis.hset(`${PREFIX}:${a.queue.name}:${rawId!}`, 'data', rawBytes);

    const source = await bullmqSource(a.queue.name);
    supervisor = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('3 imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 3, 30_000);
    const byName = new Map((await rows(source.id)).map((d) => [(d.headers as Record<string, unknown>)['bullmq.name'], d]));
    expect(Buffer.from(byName.get('text')!.payload!).toString()).toBe('"just a string"');
    expect(byName.get('text')!.contentType).toBe('application/json');
    expect(byName.get('big')!.payloadSha256).toBe(sha(JSON.stringify(big)));
    expect(byName.get('big')!.payloadSize).toBe(JSON.stringify(big).length);
    expect(Buffer.from(byName.get('raw')!.payload!)).toEqual(rawBytes);
    expect(byName.get('raw')!.contentType).toBe('application/octet-stream');
  });

  it('redrive says per job whose failure it is: a job that cannot be retried is the message, Redis down is the infrastructure', async () => {
    const a = await app(undefined, 1);
    a.version = 'v2';
    await addJobs(a, 2); // n = 0 fails, n = 1 completes
    await waitFor('one failed, one completed', async () => (await failedCount(a)) === 1 && a.completed.size === 1);
    const source = await bullmqSource(a.queue.name);
    const item = (messageId: string) =>
      outgoingRedrive({ messageId, payload: Buffer.from('{"n":1}'), contentType: 'application/json', headers: { 'bullmq.name': 'order.placed' } });
    const row = await db().source.findUniqueOrThrow({ where: { id: source.id } });
    const destination = destinationFor({ ...row, kind: 'bullmq' });
    const [completedId] = [...a.completed];
    const results = await destination.deliver([item(completedId!)], new AbortController().signal);
    expect(results[0]).toMatchObject({ ok: false, failure: 'message', error: expect.stringMatching(/is completed, not failed/) });
    await destination.close?.();

    const down = await bullmqSource(a.queue.name, {}, 'redis://127.0.0.1:1');
    const downRow = await db().source.findUniqueOrThrow({ where: { id: down.id } });
    const d2 = destinationFor({ ...downRow, kind: 'bullmq' });
    await expectUnreachable(d2, item('1'));
  });
});
