// Fault tests (workers survive a Postgres restart): Postgres is restarted twice while
// the workers run, as an operator's restart does (fast shutdown, every session cut, a few seconds
// down). The workers are never restarted: they must resume by themselves and lose nothing. The
// Postgres restarted is a private cluster of this file (test/support/private-postgres.ts), never
// the machine's shared one; the test process and the worker children all point at it.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { closeDb, db, pg } from '@/lib/db';
import { env } from '@/lib/env';
import { closeQueues } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { sendMany, type OutgoingMessage } from '@/lib/runtime';
import { resetDatabase } from '../support/db';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres';
import { completedTask, deliveriesPerMessage, park, spawnRedriveWorker, waitForDelivered, withReceiverAndWorkers, world } from './redrive-support';
import { createTestTables, dropTestQueues, jobCounts, spawnConsumer, testSource, waitFor } from './runtime-support';
import { killWorkerChildren } from '../support/worker-child';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** What an operator allows a worker to take to come back once Postgres is up again. */
const RECOVERY_MS = 30_000;

let server: PrivatePostgres;

/** Wait for Postgres to answer the test process again (its own pools reconnect on the next query). */
async function postgresBack(): Promise<void> {
  await waitFor(
    'Postgres answering again',
    async () =>
      pg()`SELECT 1`.then(
        () => true,
        () => false,
      ),
    30_000,
    200,
  );
}

describe('workers through Postgres restarts', () => {
  beforeAll(async () => {
    server = await startPrivatePostgres('pgrestart');
    // lib/ (its environment was read at import, its pools are made on first use) and the children
    // use the private cluster.
    process.env.DATABASE_URL = server.url;
    await closeDb();
    Object.assign(env(), { DATABASE_URL: server.url });
    await createTestTables();
  }, 180_000);
  // Each test builds its own world (teams, sources) on the private cluster.
  beforeEach(resetDatabase);
  afterEach(killWorkerChildren);
  afterAll(async () => {
    await dropTestQueues();
    await closeQueues();
    await closeDb();
    server?.destroy();
  });

  it('ends every one of 10,000 messages acknowledged or as exactly one dead letter while Postgres restarts twice, the consumer never restarted', {
    timeout: 420_000,
  }, async () => {
    const name = `pgrestart-${Date.now().toString(36)}`;
    // Receives enough to ride out a few seconds of Postgres down (the handler's own writes fail then).
    const source = await testSource(name, { visibilityTimeoutMs: 2_000, maxReceives: 60, backoffBaseMs: 100, backoffCapMs: 1_000 });
    const sent = new Map<string, { poison: boolean; sha: string }>();
    const list: OutgoingMessage[] = [];
    for (let i = 0; i < 10_000; i++) {
      const messageId = `p-${i}`;
      const poison = i % 20 === 7;
      const body = new Uint8Array(randomBytes(8 + (i % 200)));
      sent.set(messageId, { poison, sha: sha(body) });
      list.push({ messageId, body, headers: poison ? { 'x-poison': String(i) } : {} });
    }
    const consumer = spawnConsumer({ CONSUMER_CONCURRENCY: '20' });
    await consumer.ready;

    const settled = async () => {
      const [r] = await pg()<{ acked: number; dead: number }[]>`
        SELECT (SELECT count(*) FROM runtime_acks WHERE message_id LIKE 'p-%')::int AS acked,
               (SELECT count(*) FROM dead_letters WHERE source_id = ${source.id})::int AS dead`;
      return r!.acked + r!.dead;
    };
    // Sent in batches while it runs, so each restart finds messages being handled and parked.
    const sending = (async () => {
      for (let i = 0; i < list.length; i += 500) {
        await sendMany(name, list.slice(i, i + 500));
        await new Promise((r) => setTimeout(r, 150));
      }
    })();
    const restarts: number[] = [];
    for (const at of [2_000, 6_000]) {
      await waitFor(`${at} settled`, async () => (await settled()) >= at, 120_000, 100);
      await server.restart(3_000);
      restarts.push(Date.now());
      await postgresBack();
    }
    await sending;
    // Resumed without a restart: everything settles. About 25 s, or about 145 s when a restart leaves
    // the sweeper's transaction pending for good (postgres.js) and the sweeper gives it up after its
    // 120 s stall budget (lib/runtime/dead-letter-sweeper.ts): it is the outcome that is asserted, and
    // a timeout says what was left and in which state.
    let seen = '';
    await waitFor(
      'every message settled',
      async () => {
        const n = await settled();
        const jobs = await jobCounts(name);
        seen = `${n} settled, jobs ${JSON.stringify(jobs)}`;
        return n >= 10_000 && Object.values(jobs).every((c) => c === 0);
      },
      240_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message} (last seen: ${seen})`);
    });
    expect(consumer.process.exitCode).toBeNull();

    const acks = new Set((await pg()<{ message_id: string }[]>`SELECT message_id FROM runtime_acks WHERE message_id LIKE 'p-%'`).map((a) => a.message_id));
    const dead = new Map(
      (
        await pg()<{ message_id: string; n: number; reason: string; sha: string }[]>`
          SELECT message_id, count(*)::int AS n, min(reason::text) AS reason, min(payload_sha256) AS sha
          FROM dead_letters WHERE source_id = ${source.id} GROUP BY message_id`
      ).map((d) => [d.message_id, d]),
    );
    const wrong: string[] = [];
    for (const [id, m] of sent) {
      const d = dead.get(id);
      const ok = m.poison ? !acks.has(id) && d?.n === 1 && d.reason === 'Rejected' && d.sha === m.sha : acks.has(id) && !d;
      if (!ok) wrong.push(`${id} poison=${m.poison} acked=${acks.has(id)} dead=${JSON.stringify(d)}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(acks.size).toBe(9_500);
    expect(dead.size).toBe(500);
    console.info(`postgres restarts: 10,000 messages, ${restarts.length} restarts, ${acks.size} acknowledged, ${dead.size} dead letters, 0 lost, 0 duplicates`);
  });

  it('completes a redrive in flight through two Postgres restarts, every item delivered, the worker never restarted', { timeout: 300_000 }, async () => {
    await withReceiverAndWorkers(async (http, workers) => {
      const w = await world({ partnerUrl: http.url });
      const TOTAL = 3_000;
      const ids = await park(w.partner, TOTAL, { prefix: 'r' });
      const messageOf = new Map(ids.map((id, i) => [id, `r-${i}`]));
      const worker = spawnRedriveWorker();
      workers.push(worker);
      await worker.ready;
      const task = await startRedrive({ ...SYSTEM, label: 'pg-restart' }, { selection: { source: w.partner.name }, ratePerSecond: 200 });
      for (const at of [600, 1_800]) {
        await waitForDelivered(http, at);
        await server.restart(3_000);
        await postgresBack();
      }
      const done = await completedTask(task.id, RECOVERY_MS + 60_000, 250);
      expect(worker.process.exitCode).toBeNull();
      expect(done).toMatchObject({ total: TOTAL, sent: TOTAL, acknowledged: TOTAL, failed: 0, skipped: 0 });
      // 0 lost: every message arrived with its own dead letter's message id.
      const counts = deliveriesPerMessage(http, messageOf);
      expect(counts.size).toBe(TOTAL);
      // A batch sent just as Postgres went away may go again (same message id, deduplicated downstream): at most twice.
      for (const n of counts.values()) expect(n).toBeLessThanOrEqual(2);
      expect(await db().deadLetter.count({ where: { sourceId: w.partner.id, status: 'redriven' } })).toBe(TOTAL);
    });
  });

  it('two redrive workers on one task through a Postgres restart never send an item twice, except the sends in flight at the restart', {
    timeout: 300_000,
  }, async () => {
    await withReceiverAndWorkers(async (http, workers) => {
      const w = await world({ partnerUrl: http.url });
      const TOTAL = 2_000;
      await park(w.partner, TOTAL, { prefix: 'two' });
      // Two worker processes, each with its supervisor and runner lease id: after the restart their
      // advisory locks are gone and both reconcile the same running task.
      for (let i = 0; i < 2; i++) workers.push(spawnRedriveWorker());
      await Promise.all(workers.map((wp) => wp.ready));
      const task = await startRedrive({ ...SYSTEM, label: 'pg-restart-two' }, { selection: { source: w.partner.name }, ratePerSecond: 200 });
      // When each restart began and when Postgres was down (the stop takes up to a second on a busy machine).
      const restarts: { at: number; downAt: number }[] = [];
      for (const at of [500, 1_200]) {
        await waitForDelivered(http, at);
        const began = Date.now();
        const { downAt } = await server.restart(3_000);
        restarts.push({ at: began, downAt });
        await postgresBack();
      }
      const done = await completedTask(task.id, RECOVERY_MS + 60_000, 250);
      for (const wp of workers) expect(wp.process.exitCode).toBeNull();
      expect(done).toMatchObject({ total: TOTAL, sent: TOTAL, acknowledged: TOTAL, failed: 0, skipped: 0 });
      const sends = new Map<string, number[]>();
      for (const d of http.deliveries) sends.set(d.messageId, [...(sends.get(d.messageId) ?? []), d.at]);
      expect(sends.size).toBe(TOTAL);
      // An item goes twice only if its first send was in flight when Postgres went away (sent, not yet
      // recorded as sent): within the last moments before a restart, or while it was stopping (the
      // receiver, in this process, sees those once the stop has returned). Never three times.
      const twice = [...sends].filter(([, at]) => at.length > 1);
      const windows = restarts.map((r) => `${r.at - 2_000}..${r.downAt + 500}`).join(', ');
      for (const [messageId, at] of twice) {
        expect(at.length, messageId).toBe(2);
        expect(
          restarts.some((r) => at[0]! >= r.at - 2_000 && at[0]! <= r.downAt + 500),
          `${messageId} first sent at ${at[0]}, restart windows ${windows}`,
        ).toBe(true);
      }
      console.info(`two runners through ${restarts.length} Postgres restarts: ${TOTAL} items, ${twice.length} sent twice (in flight at a restart)`);
    });
  });
});
