// The Sidekiq connector against a real Sidekiq (Debian's ruby-sidekiq, running the worker under
// test/peers/sidekiq/ as its own process) on a Redis server of this suite's own, and the real
// Postgres. Sidekiq kills the jobs into its dead set; Triage imports them byte for byte, redrives
// them as "Retry Now" does, and Sidekiq's next deaths come back as the next generation.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliCreateSource } from '../support/cli';
import { SYSTEM, type Actor } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { connectorSourceOf, ConnectorError } from '@/lib/connectors';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import { getRedriveTask, startRedrive } from '@/lib/redrive';
import { destinationFor } from '@/lib/redrive/destinations';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import {
  connectorTestLifecycle,
  killConnectorsWhileImporting,
  outgoingOf,
  waitFor,
  waitForFailing,
  waitForHealthyAgain,
  startRedriveNoBreaker,
  expectUnreachable,
} from './connectors-rabbitmq-support';
import { waitForTask } from './redrive-support';
import {
  deadSet,
  enqueue,
  jid,
  orders,
  sidekiqSource,
  startPrivateRedis,
  startSidekiq,
  type PrivateRedis,
  type SidekiqProcess,
} from './connectors-sidekiq-support';
import { killWorkerChildren } from '../support/worker-child';

const root = fileURLToPath(new URL('../..', import.meta.url));
const RUNNER = { reconcileMs: 200, settleMs: 3_000, statusPollMs: 100 };
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const count = (sourceId: string, generation?: number) => db().deadLetter.count({ where: { sourceId, ...(generation === undefined ? {} : { generation }) } });
const health = (sourceId: string) => db().connectorHealth.findUnique({ where: { sourceId } });
const json = (b: Uint8Array) => JSON.parse(Buffer.from(b).toString('utf8')) as Record<string, unknown>;

/**
 * Sidekiq's own API (Debian's ruby-sidekiq) removing dead jobs: Retry Now (SortedEntry#retry) on the
 * RETRY jids, Delete on the DELETE jids, then a job killed with dead_max_jobs DEAD_MAX_JOBS, which trims
 * the set as every death does (DeadSet#kill keeps the newest dead_max_jobs - 1).
 */
const SIDEKIQ_API_REMOVES = `
require 'json'
require 'securerandom'
require 'sidekiq'
require 'sidekiq/api'
Sidekiq.configure_client { |c| c.redis = { url: ENV.fetch('REDIS_URL') } }
dead = Sidekiq::DeadSet.new
ENV.fetch('RETRY').split(',').each { |jid| dead.find_job(jid).retry }
ENV.fetch('DELETE').split(',').each { |jid| dead.find_job(jid).delete }
Sidekiq.options[:dead_max_jobs] = Integer(ENV.fetch('DEAD_MAX_JOBS'))
now = Time.now.to_f
dead.kill(JSON.generate('class' => 'PoisonJob', 'args' => [{ 'n' => -1 }], 'retry' => 0, 'queue' => 'orders', 'jid' => SecureRandom.hex(12),
  'created_at' => now, 'enqueued_at' => now, 'failed_at' => now, 'error_class' => 'ArgumentError', 'error_message' => 'order -1 has no customer'), notify_failure: false)
`;

let redis: PrivateRedis;
let sidekiq: SidekiqProcess | undefined;

describe('Sidekiq connector', () => {
  const running = connectorTestLifecycle(async () => {
    await sidekiq?.stop();
    sidekiq = undefined;
    await killWorkerChildren();
    await redis.start().catch(() => undefined); // a test that stopped it and failed
    await redis.client.flushdb();
  });
  beforeAll(async () => {
    redis = await startPrivateRedis();
  });
  afterAll(async () => {
    await redis?.destroy();
  });

  async function supportActor(): Promise<Actor> {
    const u = await createUser(SYSTEM, { email: 'support@test.local', role: 'support', team: 'commerce' });
    return { userId: u.id, email: u.email, role: 'support', teamId: u.teamId, via: 'session' };
  }

  /** `n` orders killed by Sidekiq itself into its dead set (every 100th a job retried once first). */
  async function killed(n: number, opts: { retriedEvery?: number; concurrency?: number } = {}) {
    sidekiq = await startSidekiq(redis, ['orders'], opts.concurrency ?? 10);
    const jobs = orders(n, 0, opts.retriedEvery ?? 0);
    await enqueue(redis.client, 'orders', jobs);
    await waitFor(`${n} dead jobs`, async () => (await redis.client.zcard('dead')) === n, 120_000, 200);
    return jobs;
  }

  it('imports 2,000 dead jobs byte for byte with their facts; a redrive after a fix runs the fixed ones, the others die again as the next generation', {
    timeout: 300_000,
  }, async () => {
    const jobs = await killed(2_000, { retriedEvery: 100 });
    const source = await sidekiqSource(redis.url);
    const actor = await supportActor();
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('all imported', async () => (await count(source.id)) === 2_000, 60_000);

    const dead = await deadSet(redis.client);
    const rows = await db().deadLetter.findMany({ where: { sourceId: source.id } });
    // Each payload is the job's JSON exactly as Sidekiq stored it; the message id is the jid.
    expect(rows.filter((d) => d.payloadSha256 !== sha(dead.get(d.messageId)!)).length).toBe(0);
    const byJid = new Map(rows.map((d) => [d.messageId, d]));
    // The i-th job's dead letter, and the job as Sidekiq stored it in the dead set.
    const deadLetterAndJob = (i: number) => [byJid.get(jobs[i]!.jid)!, json(dead.get(jobs[i]!.jid)!)] as const;
    const [poison, p] = deadLetterAndJob(7);
    expect(poison).toMatchObject({
      generation: 0,
      contentType: 'application/json',
      reason: 'MaxReceives',
      errorType: 'ArgumentError',
      errorMessage: 'order 7 has no customer',
      receiveCount: 1,
      redriveCount: 0,
      consumerName: 'PoisonJob',
      status: 'open',
    });
    // error_backtrace: base64 of zlib-compressed JSON, as 6.4 writes it.
    expect(poison.errorStack).toMatch(/worker\.rb:\d+:in `run'/);
    expect(poison.deadAt.getTime()).toBe(Math.round((p.failed_at as number) * 1000));
    expect(poison.enqueuedAt!.getTime()).toBe(Math.round((p.enqueued_at as number) * 1000));
    expect(poison.headers).toMatchObject({
      'sidekiq.class': 'PoisonJob',
      'sidekiq.queue': 'orders',
      'sidekiq.jid': jobs[7]!.jid,
      'sidekiq.retry': 0,
      'sidekiq.retry_count': 0,
      'sidekiq.set': 'dead',
    });
    // A job retried once before it died: two runs failed, the last one at retried_at.
    const [retried, r] = deadLetterAndJob(100);
    expect(retried).toMatchObject({ receiveCount: 2, errorType: 'ArgumentError', consumerName: 'RetriedJob' });
    expect(retried.deadAt.getTime()).toBe(Math.round((r.retried_at as number) * 1000));
    expect(retried.firstFailedAt!.getTime()).toBe(Math.round((r.failed_at as number) * 1000));
    // Left in place by default: Sidekiq's dead set is as it was.
    expect(await redis.client.zcard('dead')).toBe(2_000);
    await waitFor('health: 2,000 imported, nothing left', async () => {
      const h = await health(source.id);
      return h?.importedTotal === 2_000n && h.lag === 0n ? h : undefined;
    });

    // A restarted import rereads the dead set and records nothing new.
    await running.connectors.stop();
    const restarted = new Date();
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('a poll after the restart', async () => ((await health(source.id))!.lastPollAt! > restarted ? true : undefined), 10_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await count(source.id)).toBe(2_000);

    // The fix: three in four orders are fixed (a flag the worker reads). Redrive all 2,000.
    const fixed = jobs.filter((j) => (j.args[0] as { n: number }).n % 4 !== 0).map((j) => j.jid);
    await redis.client.sadd('triage_test:fixed', ...fixed);
    running.redrives = await startRedriveSupervisor(RUNNER);
    const t = await startRedriveNoBreaker(actor, { selection: { source: source.name }, ratePerSecond: 2_000, outcomeWindowSeconds: 15 });
    await waitForTask(t.id, 'all sent', (x) => x.sent === 2_000);
    await waitFor('1,500 run by Sidekiq', async () => (await redis.client.scard('triage_test:done')) === 1_500, 60_000, 200);
    await waitFor('500 dead again, as generation 1', async () => (await count(source.id, 1)) === 500, 60_000, 200);
    // Out of the dead set: only the 500 new deaths are in it.
    expect(await redis.client.zcard('dead')).toBe(500);
    const again = await db().deadLetter.findMany({ where: { sourceId: source.id, generation: 1 } });
    for (const d of again) {
      const job = json(d.payload!);
      expect((job.args as { n: number }[])[0]!.n % 4).toBe(0);
      // A fresh retry count and Triage's redrive count in the job hash.
      // (a retried kind's second death: retried once more before it died.)
      expect(job).toMatchObject({ retry_count: job.class === 'PoisonJob' ? 0 : 1, triage_redrive_count: 1 });
      expect(d.redriveCount).toBe(1);
    }
    const final = await waitForTask(t.id, 'the task completed', (x) => x.status === 'completed', 90_000);
    expect(final).toMatchObject({ sent: 2_000, deadAgain: 500, noDeathSeen: 1_500, failed: 0 });
  });

  it('loses and duplicates nothing when the connectors process is SIGKILLed again and again while importing 10,000 dead jobs', {
    timeout: 300_000,
  }, async () => {
    await killed(10_000, { concurrency: 25 });
    await sidekiq!.stop();
    const dead = await deadSet(redis.client);
    const source = await sidekiqSource(redis.url, { batchSize: 200 });
    const imported = () => count(source.id);
    const kills = await killConnectorsWhileImporting({ kills: 8, maxPauseMs: 300, total: 10_000, imported });
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('10,000 imported', async () => (await imported()) === 10_000, 120_000, 250);
    expect(kills).toBeGreaterThanOrEqual(3);
    const [all] = await pg()<{ n: number; distinct: number; maxGen: number }[]>`
      SELECT count(*)::int AS n, count(DISTINCT message_id)::int AS distinct, max(generation)::int AS "maxGen" FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    expect(all).toEqual({ n: 10_000, distinct: 10_000, maxGen: 0 });
    const rows = await pg()<
      { message_id: string; payload_sha256: string }[]
    >`SELECT message_id, payload_sha256 FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    expect(rows.filter((r) => sha(dead.get(r.message_id)!) !== r.payload_sha256).length).toBe(0);
  });

  it('resumes by itself when Redis is stopped and started mid-import, and finishes', { timeout: 180_000 }, async () => {
    await killed(3_000, { concurrency: 25 });
    await sidekiq!.stop();
    const source = await sidekiqSource(redis.url, { batchSize: 20 });
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100, backoffCapMs: 500 });
    await waitFor('import under way', async () => (await count(source.id)) > 0, 30_000, 20);
    await redis.stop();
    await waitFor('the failure on the health', async () => ((await health(source.id))?.consecutiveFailures ?? 0) > 0, 15_000);
    await redis.start();
    await waitFor('3,000 imported', async () => (await count(source.id)) === 3_000, 60_000, 200);
    expect(await count(source.id, 0)).toBe(3_000);
    const h = await waitForHealthyAgain(source.id);
    expect(h.lastError).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+\/? (is unreachable|closed)/);
  });

  it('says what is wrong: wrong password, unreachable, no Sidekiq in the database or namespace', async () => {
    await redis.client.call('ACL', 'SETUSER', 'app', 'on', '>right-pass', '~*', '+@all');
    await killed(3);
    const wrong = await sidekiqSource(redis.url.replace('redis://', 'redis://app:s3cret-wrong@'));
    const down = await sidekiqSource('redis://127.0.0.1:1');
    const elsewhere = await sidekiqSource(`${redis.url}/3`);
    const namespaced = await sidekiqSource(redis.url, { namespace: 'nope' });
    const fine = await sidekiqSource(redis.url.replace('redis://', 'redis://app:right-pass@'));
    const probe = async (id: string) => {
      const c = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id } }));
      return { c, report: await c.connector.probe(c.source) };
    };
    const w = await probe(wrong.id);
    expect(w.report).toMatchObject({ ok: false, facts: { reachable: false } });
    expect(w.report.error).toMatch(/refused the credentials/);
    expect(JSON.stringify(w.report)).not.toContain('s3cret-wrong');
    expect((await probe(down.id)).report.error).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1 is unreachable/);
    const e = await probe(elsewhere.id);
    expect(e.report).toMatchObject({ ok: false, facts: { reachable: true, exists: false } });
    expect(e.report.error).toMatch(/No Sidekiq found: Redis at .*\/3 has none of Sidekiq's keys/);
    const n = await probe(namespaced.id);
    expect(n.report.error).toMatch(/No Sidekiq found: .*\(namespace "nope"\)/);
    const f = await probe(fine.id);
    expect(f.report).toMatchObject({ ok: true, facts: { exists: true, dead: 3, queues: 'orders', processes: 1 } });
    // retry: 0 is a trap worth saying; the dead set's settings are the application's.
    expect(f.report.traps!.map((t) => t.code).sort()).toEqual(['receive_limit_one', 'settings_not_readable']);
    // The source queue: the dead jobs' queue, its length and the Sidekiq process reading it.
    expect(await f.c.connector.readSourceQueue(f.c.source, new AbortController().signal)).toEqual({
      queue: 'queue:orders',
      depth: 0,
      inFlight: null,
      consumers: 1,
      oldestAgeSeconds: null,
    });

    // The import: a clear error (ConnectorError), never a crash; the supervisor shows it on the health.
    const sink = { record: async () => [], health: () => {} };
    await expect(w.c.connector.openImport(w.c.source, sink, new AbortController().signal)).rejects.toMatchObject({ kind: 'auth' });
    await expect(n.c.connector.openImport(n.c.source, sink, new AbortController().signal)).rejects.toBeInstanceOf(ConnectorError);
    running.connectors = await startConnectorSupervisor({ only: [wrong.id, namespaced.id], discoveryMs: 200, backoffBaseMs: 100, backoffCapMs: 500 });
    const [hw, hn] = await waitForFailing([wrong.id, namespaced.id]);
    expect(hw.lastError).toMatch(/refused the credentials/);
    expect(hw.lastError).not.toContain('s3cret-wrong');
    expect(hn.lastError).toMatch(/No Sidekiq found/);
    await redis.client.call('ACL', 'DELUSER', 'app');
  });

  it('records a job that is not JSON and a 5 MB job exactly; a redrive of the one Sidekiq could not read says why', { timeout: 120_000 }, async () => {
    sidekiq = await startSidekiq(redis, ['orders']);
    const big = { jid: jid(), class: 'PoisonJob' as const, args: [{ n: 1, blob: 'x'.repeat(5 * 1024 * 1024) }] };
    await enqueue(redis.client, 'orders', [big]);
    await waitFor('the 5 MB job dead', async () => (await redis.client.zcard('dead')) === 1, 30_000);
    const garbage = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x41]);
    await redis.client.zadd('dead', String(Date.now() / 1000), garbage);
    const bigBytes = (await redis.client.zrangeBuffer('dead', '0', '0'))[0]!;
    const source = await sidekiqSource(redis.url);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('2 imported', async () => (await count(source.id)) === 2, 30_000);
    const rows = await db().deadLetter.findMany({ where: { sourceId: source.id } });
    const b = rows.find((d) => d.messageId === big.jid)!;
    expect(b.payloadSha256).toBe(sha(bigBytes));
    expect(b.payloadSize).toBe(bigBytes.length);
    const g = rows.find((d) => d.messageId !== big.jid)!;
    expect(Buffer.from(g.payload!)).toEqual(garbage);
    expect(g).toMatchObject({ messageId: `sha256:${sha(garbage)}`, contentType: 'application/octet-stream', reason: 'Manual' });
    const destination = destinationFor(await db().source.findUniqueOrThrow({ where: { id: source.id } }));
    const [result] = await destination.deliver([outgoingOf(g)], new AbortController().signal);
    expect(result).toMatchObject({ ok: false, failure: 'message', error: expect.stringMatching(/is not a JSON object/) });
    await destination.close?.();
    const downRow = await db().source.findUniqueOrThrow({ where: { id: (await sidekiqSource('redis://127.0.0.1:1')).id } });
    const d2 = destinationFor(downRow);
    await expectUnreachable(d2, outgoingOf(b));
  });

  it('does not push a job Sidekiq no longer holds in its dead set when the source leaves jobs in place; pushes those Triage removed itself', async () => {
    const at = Date.now() / 1000 - 60;
    const job = (n: number) => {
      const id = jid();
      const text = JSON.stringify({
        class: 'PoisonJob',
        args: [{ n }],
        retry: 0,
        queue: 'orders',
        jid: id,
        created_at: at,
        enqueued_at: at,
        error_message: `order ${n} has no customer`,
        error_class: 'ArgumentError',
        failed_at: at + n,
        retry_count: 0,
      });
      return { jid: id, text, score: String(at + n) };
    };
    // Left in place (the default): one still in the dead set, one deleted and one retried in Sidekiq's Web UI.
    const [kept, deleted, retriedInUi] = [job(1), job(2), job(3)];
    const m = redis.client.multi().sadd('queues', 'orders');
    for (const j of [kept, deleted, retriedInUi]) m.zadd('dead', j.score, j.text);
    await m.exec();
    const left = await sidekiqSource(redis.url);
    // Removed by Triage after import, under a namespace of its own.
    const removed = job(4);
    await redis.client.multi().sadd('b:queues', 'orders').zadd('b:dead', removed.score, removed.text).exec();
    const taken = await sidekiqSource(redis.url, { namespace: 'b', removeAfterImport: true });
    running.connectors = await startConnectorSupervisor({ only: [left.id, taken.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor(
      'all imported, the namespaced one removed',
      async () => (await count(left.id)) === 3 && (await count(taken.id)) === 1 && (await redis.client.zcard('b:dead')) === 0,
      30_000,
    );
    const rows = new Map((await db().deadLetter.findMany({ where: { sourceId: { in: [left.id, taken.id] } } })).map((d) => [d.messageId, d]));
    // The fact the redrive goes by, stored with each dead letter at import.
    expect(rows.get(kept.jid)!.headers).toMatchObject({ 'sidekiq.remove_after_import': false });
    expect(rows.get(removed.jid)!.headers).toMatchObject({ 'sidekiq.remove_after_import': true });

    // The Web UI's Delete, and its Retry Now (out of the set, onto the queue).
    await redis.client.zrem('dead', deleted.text);
    await redis.client.multi().zrem('dead', retriedInUi.text).lpush('queue:orders', retriedInUi.text).exec();
    // A dead letter imported before the fact was stored: redriven as before, whatever the set holds.
    const legacy = outgoingOf(rows.get(deleted.jid)!);
    const legacyHeaders = { ...legacy.origin };
    delete legacyHeaders['sidekiq.remove_after_import'];
    const destination = destinationFor(await db().source.findUniqueOrThrow({ where: { id: left.id } }));
    const results = await destination.deliver(
      [kept, deleted, retriedInUi].map((j) => outgoingOf(rows.get(j.jid)!)),
      new AbortController().signal,
    );
    expect(results[0]).toEqual({ ok: true, acknowledged: false });
    for (const r of results.slice(1)) {
      expect(r).toMatchObject({
        ok: false,
        failure: 'gone',
        error: expect.stringMatching(/no longer in Sidekiq's dead set .*retried, deleted or trimmed by Sidekiq.*nothing was sent/i),
      });
    }
    // Only the kept one went to the queue (after the Web UI's own push), and left the dead set.
    const queued = (await redis.client.lrange('queue:orders', 0, -1)).map((t) => (JSON.parse(t) as { jid: string }).jid);
    expect(queued).toEqual([kept.jid, retriedInUi.jid]);
    expect(await redis.client.zcard('dead')).toBe(0);
    expect(await destination.deliver([{ ...legacy, origin: legacyHeaders }], new AbortController().signal)).toEqual([{ ok: true, acknowledged: false }]);
    expect(await redis.client.llen('queue:orders')).toBe(3);
    await destination.close?.();

    // Triage removed it: back to its queue.
    const d2 = destinationFor(await db().source.findUniqueOrThrow({ where: { id: taken.id } }));
    expect(await d2.deliver([outgoingOf(rows.get(removed.jid)!)], new AbortController().signal)).toEqual([{ ok: true, acknowledged: false }]);
    await d2.close?.();
    expect((JSON.parse((await redis.client.lrange('b:queue:orders', 0, -1))[0]!) as { jid: string }).jid).toBe(removed.jid);
  });

  it('skips, without pushing or tripping the breaker, the jobs Sidekiq retried, deleted or trimmed from its dead set before the redrive', {
    timeout: 180_000,
  }, async () => {
    const jobs = await killed(20);
    await sidekiq!.stop();
    sidekiq = undefined;
    const source = await sidekiqSource(redis.url);
    const actor = await supportActor();
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('all imported', async () => (await count(source.id)) === 20, 60_000);
    await running.connectors.stop();
    running.connectors = undefined;

    // Sidekiq's own API removes 12 of the 20: Retry Now on two, Delete on two, and a death with
    // dead_max_jobs 10 trims the oldest 8 of the other 16 (the set keeps dead_max_jobs - 1).
    const [retried, deleted] = [jobs.slice(0, 2).map((j) => j.jid), jobs.slice(2, 4).map((j) => j.jid)];
    const ruby = spawnSync('ruby', ['-e', SIDEKIQ_API_REMOVES], {
      cwd: root,
      env: { ...process.env, REDIS_URL: redis.url, RETRY: retried.join(','), DELETE: deleted.join(','), DEAD_MAX_JOBS: '10', RUBYOPT: '-W0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(ruby.status, ruby.stderr).toBe(0);
    const imported = new Set(jobs.map((j) => j.jid));
    const left = [...(await deadSet(redis.client)).keys()].filter((j) => imported.has(j));
    expect(left).toHaveLength(8);
    // Sidekiq's Retry Now put its two on the queue.
    const queued = async () => (await redis.client.lrange('queue:orders', 0, -1)).map((t) => JSON.parse(t) as { jid: string; triage_redrive_count?: number });
    expect((await queued()).map((j) => j.jid).sort()).toEqual([...retried].sort());

    running.redrives = await startRedriveSupervisor(RUNNER);
    const rows = await db().deadLetter.findMany({ where: { sourceId: source.id }, select: { id: true, messageId: true } });
    const t = await startRedrive(actor, { selection: { ids: rows.map((r) => r.id.toString()) }, ratePerSecond: 100 });
    const settled = await waitFor(
      'every item settled, or the task paused',
      async () => {
        const x = await db().redriveTask.findUniqueOrThrow({ where: { id: t.id } });
        return x.sent + x.skipped + x.failed === 20 || x.status === 'paused' ? x : undefined;
      },
      60_000,
    );
    // The breaker did not count them: a healthy Sidekiq keeps its redrive running.
    expect(settled.status).not.toBe('paused');
    expect(settled.pausedReason).toBeNull();
    expect(settled).toMatchObject({ sent: 8, skipped: 12, failed: 0 });

    // Pushed: the 8 still in the dead set, once each; the 12 gone were not (Sidekiq's two retries are there once).
    const after = await queued();
    expect(
      after
        .filter((j) => j.triage_redrive_count === 1)
        .map((j) => j.jid)
        .sort(),
    ).toEqual([...left].sort());
    expect(after.map((j) => j.jid).sort()).toEqual([...left, ...retried].sort());
    expect(await deadSet(redis.client).then((d) => [...d.keys()].filter((j) => imported.has(j)))).toEqual([]);

    // Skipped with the reason, their dead letters open again.
    const gone = jobs.map((j) => j.jid).filter((j) => !left.includes(j));
    const items = await pg()<{ message_id: string; state: string; error: string | null; status: string }[]>`
      SELECT d.message_id, i.state::text AS state, i.error, d.status::text AS status
      FROM redrive_items i JOIN dead_letters d ON d.id = i.dead_letter_id WHERE i.task_id = ${t.id}::uuid`;
    const skipped = items.filter((i) => i.state === 'skipped');
    expect(skipped.map((i) => i.message_id).sort()).toEqual([...gone].sort());
    for (const i of skipped) {
      expect(i.error).toMatch(/no longer in Sidekiq's dead set .*retried, deleted or trimmed.*nothing was sent/i);
      expect(i.status).toBe('open');
    }
    // The API says how many and why.
    expect(await getRedriveTask(actor, t.id)).toMatchObject({ counts: { sent: 8, skipped: 12, failed: 0 }, gone: 12, loops: 0 });
  });

  it("imports retrying jobs past the source's retry count once, leaves them retrying, and redrives one out of the retry set", async () => {
    const at = Date.now() / 1000 - 60;
    const retrying = (n: number, retryCount: number) =>
      JSON.stringify({
        class: 'PoisonJob',
        args: [{ n }],
        retry: 25,
        queue: 'orders',
        jid: jid(),
        created_at: at,
        enqueued_at: at,
        error_message: `order ${n} has no customer`,
        error_class: 'ArgumentError',
        failed_at: at,
        retry_count: retryCount,
        retried_at: at + retryCount,
      });
    const [young, old] = [retrying(1, 1), retrying(2, 7)];
    await redis.client
      .multi()
      .sadd('queues', 'orders')
      .zadd('retry', String(at + 3600), young)
      .zadd('retry', String(at + 7200), old)
      .exec();
    const source = await sidekiqSource(redis.url, { retryCountAtLeast: 5, removeAfterImport: true });
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('the old one imported', async () => (await count(source.id)) === 1, 30_000);
    await new Promise((r) => setTimeout(r, 1_000)); // more looks: nothing more
    expect(await count(source.id)).toBe(1);
    const d = await db().deadLetter.findFirstOrThrow({ where: { sourceId: source.id } });
    expect(Buffer.from(d.payload!).toString()).toBe(old);
    expect(d).toMatchObject({ reason: 'MaxReceives', receiveCount: 8, headers: expect.objectContaining({ 'sidekiq.set': 'retry' }) });
    // Still Sidekiq's to retry: removeAfterImport is the dead set's only.
    expect(await redis.client.zcard('retry')).toBe(2);
    const destination = destinationFor(await db().source.findUniqueOrThrow({ where: { id: source.id } }));
    expect(await destination.deliver([outgoingOf(d)], new AbortController().signal)).toEqual([{ ok: true, acknowledged: false }]);
    await destination.close?.();
    expect(await redis.client.zrange('retry', '0', '-1')).toEqual([young]);
    expect(await redis.client.llen('queue:orders')).toBe(1);
  });

  it('takes a source from the CLI contract (--kind sidekiq --redis-url --namespace) and imports, removes and redrives under the namespace', async () => {
    // A namespaced Sidekiq (redis-namespace writes "<ns>:dead", "<ns>:queue:<name>"…): its dead job as Sidekiq 5 wrote it, the backtrace a JSON array.
    const job = {
      class: 'HardJob',
      args: [1, 'two'],
      retry: true,
      queue: 'mail',
      jid: jid(),
      created_at: 1700000000.25,
      enqueued_at: 1700000000.5,
      error_message: 'boom',
      error_class: 'RuntimeError',
      failed_at: 1700000001.125,
      retry_count: 24,
      retried_at: 1700086400.75,
      error_backtrace: ["app/jobs/hard_job.rb:3:in `perform'"],
      big: 12345678901234567000,
    };
    const text = JSON.stringify(job).replace('12345678901234567000', '12345678901234567890');
    await createTeam(SYSTEM, { name: 'commerce' });
    await redis.client.multi().sadd('app1:queues', 'mail').zadd('app1:dead', '1700086400.8', text).exec();
    const cli = cliCreateSource('sidekiq', ['--name', 'cli-rails', '--redis-url', redis.url, '--namespace', 'app1', '--json']);
    expect(cli.status, cli.stderr).toBe(0);
    const created = JSON.parse(cli.stdout) as { id: string; kind: string };
    expect(created.kind).toBe('sidekiq');
    const row = await db().source.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.connection).toMatchObject({ namespace: 'app1', removeAfterImport: false });
    await db().source.update({ where: { id: row.id }, data: { connection: { ...(row.connection as object), removeAfterImport: true, pollMs: 300 } } });
    running.connectors = await startConnectorSupervisor({ only: [row.id], discoveryMs: 200, backoffBaseMs: 100 });
    await waitFor('imported and removed', async () => (await count(row.id)) === 1 && (await redis.client.zcard('app1:dead')) === 0, 30_000);
    const d = await db().deadLetter.findFirstOrThrow({ where: { sourceId: row.id } });
    expect(Buffer.from(d.payload!).toString('utf8')).toBe(text);
    expect(d).toMatchObject({
      messageId: job.jid,
      errorType: 'RuntimeError',
      errorMessage: 'boom',
      errorStack: "app/jobs/hard_job.rb:3:in `perform'",
      receiveCount: 25,
    });
    expect(d.deadAt.getTime()).toBe(1700086400750);

    const destination = destinationFor(await db().source.findUniqueOrThrow({ where: { id: row.id } }));
    expect(await destination.deliver([outgoingOf(d)], new AbortController().signal)).toEqual([{ ok: true, acknowledged: false }]);
    await destination.close?.();
    const [pushed] = await redis.client.lrange('app1:queue:mail', 0, -1);
    // Every field it had, the big number's digits too; none of the failure's; Triage's count.
    expect(pushed).toContain('"big":12345678901234567890');
    const back = JSON.parse(pushed!) as Record<string, unknown>;
    expect(Object.keys(back)).toEqual(['class', 'args', 'retry', 'queue', 'jid', 'created_at', 'big', 'enqueued_at', 'triage_redrive_count']);
    expect(back).toMatchObject({ class: 'HardJob', args: [1, 'two'], jid: job.jid, triage_redrive_count: 1 });
    expect(await redis.client.sismember('app1:queues', 'mail')).toBe(1);
  });
});
