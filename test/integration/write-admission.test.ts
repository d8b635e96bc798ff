// Write admission (lib/admission): ingest, connector imports, the runtime's sweeper and the search
// indexer share one budget of concurrent write work, per process and across processes. Here the
// budget is one share and another holder (a second WriteBudget: another process's view, its own
// Redis connection and count) takes it. Real Postgres, Redis and BullMQ; nothing is mocked.
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

vi.hoisted(() => {
  process.env.WRITE_BUDGET = '1';
  process.env.WRITE_BUDGET_INGEST_WAIT_MS = '200';
});

import { SYSTEM } from '@/lib/auth';
import { ADMISSION_REDIS_OPTIONS, WriteBudget, writeBudget, type WriteLease } from '@/lib/admission';
import { recordAdmitted } from '@/lib/connectors/supervisor';
import { closeDb, db, pg } from '@/lib/db';
import { ReplaceablePool } from '@/lib/db/stall-guard';
import { closeIngestSql } from '@/lib/ingest/ingest-sql';
import { toNewDeadLetter } from '@/lib/ingest/ingest-item';
import { renderMetrics } from '@/lib/metrics/render-metrics';
import { closeQueues, producerQueue, QUEUES } from '@/lib/queue';
import { redisConnection, type RedisClient } from '@/lib/redis';
import { DeadLetterSweeper } from '@/lib/runtime/dead-letter-sweeper';
import { startSearchIndexer } from '@/lib/search';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { resetDatabase } from '../support/db';
import { b64, ctx, jsonRequest, world, type World } from './deadletters-world';
import { dropTestQueues, failedJobs, spawnConsumer, testSource, waitFor } from './runtime-support';

const post = (w: World, ids: string[]) =>
  postBatch(
    jsonRequest('/api/v1/sources/orders/dead-letters', w.tokens.ingest.orders, {
      deadLetters: ids.map((messageId) => ({ messageId, payload: b64(`{"id":"${messageId}"}`) })),
    }),
    ctx({ source: 'orders' }),
  );
const countOf = async (sourceId: string) => db().deadLetter.count({ where: { sourceId } });

describe('write admission', () => {
  // Another process's view of the same budget: its own count, its own Redis connection.
  let other: WriteBudget;
  const held: WriteLease[] = [];
  const redises: RedisClient[] = [];
  const hold = async () => {
    const lease = await other.tryAcquire('connectors');
    expect(lease).not.toBeNull();
    held.push(lease!);
    return lease!;
  };

  /**
   * A budget on its own kind of connection, held on the server by a blocking pop: an acquire queued
   * behind it runs in Redis (and grants the share) only after its 1 s timeout has given up.
   * `answer` lets the connection go: Redis runs the given-up commands, then whatever followed them;
   * a ping sent then is answered after all of it.
   */
  const stalled = (size: number) => {
    const client = redisConnection('producer', ADMISSION_REDIS_OPTIONS);
    const pusher = redisConnection('producer');
    redises.push(client, pusher);
    const key = `${process.env.QUEUE_PREFIX}:admission-test:block-${randomBytes(4).toString('hex')}`;
    const blocking = client.blpop(key, 30).catch(() => null);
    const answer = async () => {
      await pusher.lpush(key, 'go');
      await blocking;
      await client.ping();
    };
    return { slow: new WriteBudget({ size, redis: client }), answer };
  };

  beforeEach(async () => {
    await resetDatabase();
    other = new WriteBudget({ size: 1 });
  });
  afterEach(async () => {
    await Promise.all(held.splice(0).map((l) => l.release()));
    await other.close();
    await Promise.all(redises.splice(0).map((r) => r.quit()));
  });
  afterAll(async () => {
    await writeBudget().close();
    await dropTestQueues();
    await closeQueues();
    await closeIngestSql();
    await closeDb();
  });

  it('ingest answers 503 + Retry-After and writes nothing while another holder has the budget, then goes through once it is given back', async () => {
    const w = await world();
    const lease = await hold();
    const refused = await post(w, ['a-1', 'a-2']);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { error: { code: string; message: string; details?: { reason?: string } } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.message).toMatch(/retry/i);
    expect(body.error.details?.reason).toBe('write_budget');
    expect(await countOf(w.sources.orders.id)).toBe(0);

    await lease.release();
    const accepted = await post(w, ['a-1', 'a-2']);
    expect(accepted.status).toBe(200);
    expect(await countOf(w.sources.orders.id)).toBe(2);

    // Counted where /api/metrics reads it, across processes.
    const metrics = (await renderMetrics(SYSTEM)).body;
    expect(metrics).toMatch(/^triage_write_budget_size 1$/m);
    expect(metrics).toMatch(/^triage_write_budget_refusals_total\{writer="ingest"\} [1-9]/m);
    expect(metrics).toMatch(/^triage_write_budget_throttled_seconds_total\{writer="ingest"\} 0\.[0-9]*[1-9]/m);
    expect(metrics).toMatch(/^triage_write_budget_in_use 0$/m);
  });

  it('a connector import waits for the budget with its batch in hand (nothing written, nothing failed), then records it', async () => {
    const source = await testSource('admission-connector');
    const batch = ['c-1', 'c-2', 'c-3'].map((messageId, i) => toNewDeadLetter({ messageId, payload: b64('{}') }, i, 1 << 20));
    const lease = await hold();
    const writes = new ReplaceablePool();
    let settled: 'resolved' | 'rejected' | null = null;
    const recording = recordAdmitted(writeBudget(), { id: source.id, retentionSeconds: 86_400 }, batch, writes, new AbortController().signal).then(
      (r) => {
        settled = 'resolved';
        return r;
      },
      (e: unknown) => {
        settled = 'rejected';
        return Promise.reject(e);
      },
    );
    await sleep(1_500);
    expect(settled).toBeNull();
    expect(await countOf(source.id)).toBe(0);
    await lease.release();
    const recorded = await recording;
    expect(recorded.map((r) => r.created)).toEqual([true, true, true]);
    expect(await countOf(source.id)).toBe(3);
    await writes.end();
  });

  it('a connector import stopped while it waits rejects without writing: the batch stays on the broker', async () => {
    const source = await testSource('admission-connector-stop');
    await hold();
    const stop = new AbortController();
    const writes = new ReplaceablePool();
    const recording = recordAdmitted(
      writeBudget(),
      { id: source.id, retentionSeconds: 86_400 },
      [toNewDeadLetter({ messageId: 's-1', payload: b64('{}') }, 0, 1 << 20)],
      writes,
      stop.signal,
    );
    await sleep(200);
    stop.abort();
    await expect(recording).rejects.toThrow(/stays on the broker/);
    expect(await countOf(source.id)).toBe(0);
    await writes.end();
  });

  it('the sweeper leaves failed jobs in Redis while the budget is spent, and writes them all once it frees', async () => {
    const name = `admission-sweep-${Date.now().toString(36)}`;
    const source = await testSource(name);
    await failedJobs(
      name,
      Array.from({ length: 20 }, (_, i) => ({ messageId: `sw-${i}`, body: new TextEncoder().encode(`{"n":${i}}`) })),
    );
    const lease = await hold();
    const queue = producerQueue(QUEUES.source(name));
    const redis = redisConnection('worker');
    redises.push(redis);
    const sweeper = new DeadLetterSweeper(queue, redis, () => ({ id: source.id, retentionSeconds: 86_400 }));
    sweeper.start();
    try {
      // The stray sweep is due at once (and every 2 s): it waits rather than writing.
      await sleep(3_000);
      expect(await countOf(source.id)).toBe(0);
      expect(await queue.getFailedCount()).toBe(20);
      await lease.release();
      await waitFor('the 20 written', async () => (await countOf(source.id)) === 20, 30_000);
      await waitFor('an empty failed set', async () => (await queue.getFailedCount()) === 0);
    } finally {
      await sweeper.stop();
    }
  });

  it('a sweep written row by row stops between rows when its lease is lost, until it holds the share again', async () => {
    const name = `admission-sweep-lost-${Date.now().toString(36)}`;
    const source = await testSource(name);
    const body = new TextEncoder().encode('{"order":1}');
    // A message id Postgres refuses (longer than a btree index row may be) fails the batch as a
    // whole: the sweep then writes it row by row, the refused one first.
    const huge = `huge-${randomBytes(12 * 1024).toString('base64')}`;
    await failedJobs(
      name,
      [huge, 'ok-0', 'ok-1', 'ok-2'].map((messageId) => ({ messageId, body })),
    );
    const queue = producerQueue(QUEUES.source(name));
    const redis = redisConnection('worker');
    redises.push(redis);
    const prefix = `${process.env.QUEUE_PREFIX}:lost-${Date.now().toString(36)}`;
    const budget = new WriteBudget({ size: 1, leaseMs: 600, prefix });
    const rival = new WriteBudget({ size: 1, leaseMs: 600, prefix });
    const sweeper = new DeadLetterSweeper(queue, redis, () => ({ id: source.id, retentionSeconds: 86_400 }), { budget });
    // The first row written blocks on a lock this test holds (its search backlog entry).
    let unlock: () => void = () => undefined;
    const unlocked = new Promise<void>((r) => (unlock = r));
    let locked: () => void = () => undefined;
    const isLocked = new Promise<void>((r) => (locked = r));
    const lock = pg().begin(async (tx) => {
      await tx`LOCK TABLE search_backlog IN EXCLUSIVE MODE`;
      locked();
      await unlocked;
    });
    try {
      await isLocked;
      const jobs = await queue.getJobs(['failed']);
      jobs.sort((a, b) => (a.data.messageId < b.data.messageId ? -1 : 1));
      for (const job of jobs) sweeper.add(job);
      await waitFor(
        'the first row waiting on the lock',
        async () => {
          const [r] = await pg()<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'search_backlog'::regclass`;
          return r!.n > 0;
        },
        30_000,
      );
      // Its lease goes (as under a stall longer than a lease) and another process takes the share.
      await redis.del(`${prefix}:admission:leases`);
      const theirs = await rival.tryAcquire('ingest');
      expect(theirs).not.toBeNull();
      await waitFor('the loss seen by the renewal', async () => (await rival.stats()).writers.sweeper.lostLeases === 1, 10_000);
      unlock();
      await lock;
      // The row under way is written; the next ones wait for the share.
      await waitFor('the first row written', async () => (await countOf(source.id)) >= 1, 30_000);
      await sleep(1_500);
      expect(await countOf(source.id)).toBe(1);
      await theirs!.release();
      await waitFor('all 3 written', async () => (await countOf(source.id)) === 3, 30_000);
    } finally {
      unlock();
      await lock.catch(() => undefined);
      await sweeper.stop();
      await budget.close();
      await rival.close();
    }
  });

  it('the search indexer waits for the budget, then indexes the backlog', async () => {
    const w = await world();
    expect((await post(w, ['i-1', 'i-2'])).status).toBe(200);
    const backlog = async () => Number((await pg()<{ n: number }[]>`SELECT count(*)::int AS n FROM search_backlog`)[0]!.n);
    expect(await backlog()).toBe(2);
    const lease = await hold();
    const indexer = await startSearchIndexer({ concurrency: 1 });
    try {
      await sleep(1_500);
      expect(await backlog()).toBe(2);
      await lease.release();
      await waitFor('an empty backlog', async () => (await backlog()) === 0, 30_000);
      expect(indexer.indexed()).toBe(2);
    } finally {
      await indexer.stop();
    }
  });

  it("a killed holder's lease expires: its share comes back without anyone releasing it", async () => {
    const leaseMs = 1_000;
    const child = spawnConsumer({ WRITE_BUDGET: '1', WRITE_BUDGET_LEASE_MS: String(leaseMs) }, 'test/integration/admission-holder-child.ts');
    await child.ready;
    const budget = new WriteBudget({ size: 1, leaseMs });
    try {
      // Alive, it renews: still held well past one lease's life.
      await sleep(leaseMs * 2);
      expect(await budget.tryAcquire('ingest')).toBeNull();
      child.process.kill('SIGKILL');
      await child.exited;
      const lease = await waitFor("the dead holder's share back", () => budget.tryAcquire('ingest').then((l) => l ?? undefined), leaseMs * 5);
      await lease.release();
    } finally {
      await budget.close();
    }
  });

  it('an acquire whose reply misses its timeout leaves no lease behind once Redis has run it', async () => {
    const { slow, answer } = stalled(1);
    const started = performance.now();
    const lease = await slow.tryAcquire('ingest');
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    // Redis did not answer in time: the write goes through unbounded, as documented.
    expect(lease).not.toBeNull();
    await answer();
    // The lease Redis granted late is given back at once, not left for WRITE_BUDGET_LEASE_MS (30 s).
    expect((await other.stats()).inUse).toBe(0);
    await hold();
    await lease!.release();
  });

  it('while Redis stalls each acquire waits for one reply at most, and leaves no lease once it answers', async () => {
    const { slow, answer } = stalled(3);
    const leases: WriteLease[] = [];
    const took: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const lease = await slow.tryAcquire('ingest');
      took.push(performance.now() - started);
      expect(lease).not.toBeNull();
      leases.push(lease!);
    }
    // One command timeout (1 s) each: the ids left by the acquires before it cost no round trip of
    // their own ahead of the next acquire.
    for (const ms of took.slice(1)) expect(ms).toBeLessThan(1_900);
    await answer();
    expect((await other.stats()).inUse).toBe(0);
    await Promise.all(leases.map((l) => l.release()));
  });

  it('a holder released while it waits for its lost share gives the share back once taken', async () => {
    const prefix = `${process.env.QUEUE_PREFIX}:released-${Date.now().toString(36)}`;
    const budget = new WriteBudget({ size: 1, leaseMs: 600, prefix });
    const rival = new WriteBudget({ size: 1, leaseMs: 600, prefix });
    const redis = redisConnection('producer');
    redises.push(redis);
    try {
      const lease = await budget.tryAcquire('sweeper');
      expect(lease).not.toBeNull();
      // Its lease goes (as under a stall longer than a lease) and another process takes the share.
      await redis.del(`${prefix}:admission:leases`);
      const theirs = await rival.tryAcquire('ingest');
      expect(theirs).not.toBeNull();
      await waitFor('the loss seen by the renewal', async () => lease!.lost, 10_000);
      const ensuring = lease!.ensure();
      await lease!.release();
      await theirs!.release();
      expect(await ensuring).toBe(false);
      // Whatever it took after its release went back: the share is free.
      expect((await rival.stats()).inUse).toBe(0);
      const next = await rival.tryAcquire('ingest');
      expect(next).not.toBeNull();
      await next!.release();
    } finally {
      await budget.close();
      await rival.close();
    }
  });

  it('a holder whose lease expired takes it again before its next write, counted as lost', async () => {
    const leaseMs = 300;
    const budget = new WriteBudget({ size: 1, leaseMs });
    const rival = new WriteBudget({ size: 1, leaseMs });
    try {
      await rival.stats(); // connected, so its acquire below reaches Redis before any renewal
      const lease = await budget.tryAcquire('sweeper');
      expect(lease).not.toBeNull();
      // A stalled event loop: no renewal runs for two lease lives, so Redis lets the lease go ...
      const until = Date.now() + leaseMs * 2;
      while (Date.now() < until) {
        // busy: the stall itself
      }
      // ... and another process takes the share meanwhile.
      const theirs = await rival.tryAcquire('ingest');
      expect(theirs).not.toBeNull();
      await waitFor('the loss seen by the renewal', async () => lease!.lost, 10_000);
      // Before its next write the holder waits for the share again, and gets it once it is free.
      let held: boolean | null = null;
      const ensuring = lease!.ensure().then((ok) => (held = ok));
      const metrics = (await renderMetrics(SYSTEM)).body;
      expect(metrics).toMatch(/^triage_write_budget_lost_leases_total\{writer="sweeper"\} 1$/m);
      expect(held).toBeNull();
      expect((await rival.stats()).inUse).toBe(1);
      await theirs!.release();
      await ensuring;
      expect(held).toBe(true);
      expect(lease!.lost).toBe(false);
      expect((await rival.stats()).inUse).toBe(1);
      expect(await rival.tryAcquire('ingest')).toBeNull();
      await lease!.release();
      expect((await rival.stats()).inUse).toBe(0);

      // Stopped while it waits: no share, and it says so.
      const second = await budget.tryAcquire('sweeper');
      const end = Date.now() + leaseMs * 2;
      while (Date.now() < end) {
        // busy: the stall itself
      }
      const again = await rival.tryAcquire('ingest');
      expect(again).not.toBeNull();
      await waitFor('the loss seen by the renewal', async () => second!.lost, 10_000);
      const stop = new AbortController();
      const given = second!.ensure({ signal: stop.signal });
      stop.abort();
      expect(await given).toBe(false);
      await second!.release();
      await again!.release();
    } finally {
      await budget.close();
      await rival.close();
    }
  });
});
