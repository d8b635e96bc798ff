// The Sidekiq connector: import throughput from a dead set into Postgres (every job committed
// through recordDeadLetters, then removed from the dead set: removeAfterImport), in the same run
// against clients that read and delete the same jobs:
//   - the target (≥ 0.5×): Sidekiq's own client as a Sidekiq user's script reads and deletes the dead
//     set (the real gem, Debian's ruby-sidekiq: `JobSet#each { |job| job.delete }`, DeadSet's own
//     code, timed inside Ruby). The other connectors' "plain client loop" is the broker's official
//     client (amqplib, the AWS SDK, @azure/storage-queue); for a dead set that client is Sidekiq's API;
//   - information, no target: a plain ioredis loop (ZRANGEBYSCORE a batch of the connector's size,
//     ZREM it), Redis at memory speed: no import that writes to Postgres can reach half of it (the
//     write path alone reaches about a tenth);
// and the ceiling of the write path itself: the same rows, prebuilt, recorded as the import records
// them (batches of its size, as many at once). And redrive pacing at 100 and 1,000 jobs/s, measured
// where a fetch of the job's queue (BRPOP, as Sidekiq's) receives them (target ±5%). On the machine's
// Redis (127.0.0.1:6379), under a namespace of this run's own (Sidekiq's keys are the connector's
// namespace setting), removed afterwards. The sides run interleaved, ROUNDS times; the round with the
// median ratio is reported.
//   npx tsx test/bench/run.ts sidekiq
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { deflateSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import type { BenchResult } from './run';
import { WORKER_NODE_FLAGS } from '../../scripts/lib/worker-flags.mjs';
import { measureRedrivePacingWhileReading, redrivePacingResults, type RedriveFigure } from './connector-redrive';
import { importAgainst, measureWhenFlagged, runBenchChild } from './support';
import { createTeam } from '@/lib/admin/teams';
import { SYSTEM } from '@/lib/auth';
import { sidekiqConfigSchema } from '@/lib/connectors/sidekiq/config';
import { MAX_WRITES } from '@/lib/connectors/sidekiq/import';
import { deadLetterOfEntry } from '@/lib/connectors/sidekiq/job';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import { ReplaceablePool } from '@/lib/db/stall-guard';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { createSource } from '@/lib/sources/create-source';

const CHILD_FLAG = '--sidekiq-bench-child';
const REDIS_URL = 'redis://127.0.0.1:6379';
// Sidekiq's default dead_max_jobs: the most a dead set holds unless the application raised it.
const IMPORT_N = Number(process.env.BENCH_SIDEKIQ_N ?? 10_000);
const ROUNDS = 3;
const REDRIVE_RATES = [100, 1_000];
const REDRIVE_SECONDS = 4;

/**
 * A Sidekiq user's script emptying the dead set job by job, as Sidekiq's API documents it
 * (DeadSet#each, SortedEntry#delete: pages of 50, one ZREM per job). DeadSet is JobSet.new("dead");
 * the application's namespace would be redis-namespace's, which Debian's Sidekiq does not bring, so
 * the set is named in full (one wrapper less per call: if anything, faster).
 */
const RUBY_DELETE_ALL = `
require 'json'
require 'sidekiq'
require 'sidekiq/api'
Sidekiq.configure_client { |c| c.redis = { url: ENV.fetch('REDIS_URL') } }
Sidekiq.redis { |c| c.ping }
t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
n = 0
Sidekiq::JobSet.new(ENV.fetch('DEAD_SET')).each { |job| job.delete; n += 1 }
puts JSON.generate(deleted: n, seconds: Process.clock_gettime(Process::CLOCK_MONOTONIC) - t)
`;

/** One interleaved round: the rates (jobs/s) of the plain loop, Sidekiq's client, the import, the write path alone; the 1-minute load average after it. */
type Round = Record<'plainPerSecond' | 'sidekiqPerSecond' | 'importPerSecond' | 'ceilingPerSecond' | 'load', number>;
type Measured = { rounds: Round[]; redrive: RedriveFigure[] };

async function child(): Promise<Measured> {
  const ns = `triage-bench-sk-${process.pid}`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const dead = `${ns}:dead`;

  /** IMPORT_N dead jobs as Sidekiq 6.4 kills them (retry: 0, the backtrace compressed). */
  // JobRetry#compress_backtrace: base64 (lines of 60) of the zlib-deflated JSON array.
  const backtrace = `${deflateSync(JSON.stringify(["app/jobs/order_job.rb:12:in `perform'", "sidekiq/processor.rb:196:in `execute_job'"]))
    .toString('base64')
    .replace(/(.{60})/g, '$1\n')}\n`;
  function jobs(): { score: string; text: string }[] {
    const now = Date.now() / 1000;
    return Array.from({ length: IMPORT_N }, (_, i) => {
      const at = now + i / 1e6;
      const job = {
        retry: 0,
        queue: 'orders',
        backtrace: true,
        class: 'OrderJob',
        args: [{ order: i, sku: 'A-1', qty: 2, note: randomBytes(48).toString('hex') }],
        jid: randomBytes(12).toString('hex'),
        created_at: at,
        enqueued_at: at,
        error_message: `Order ${i} rejected: unknown field "giftWrap"`,
        error_class: 'ArgumentError',
        failed_at: at,
        retry_count: 0,
        error_backtrace: backtrace,
      };
      return { score: String(at), text: JSON.stringify(job) };
    });
  }
  async function fill(): Promise<void> {
    const all = jobs();
    for (let start = 0; start < IMPORT_N; start += 1_000) {
      const m = redis.multi();
      for (const j of all.slice(start, start + 1_000)) m.zadd(dead, j.score, j.text);
      m.sadd(`${ns}:queues`, 'orders');
      await m.exec();
    }
  }

  await createTeam(SYSTEM, { name: 'bench' });
  const source = await createSource(SYSTEM, {
    name: 'bench-sidekiq',
    team: 'bench',
    kind: 'sidekiq',
    connection: { namespace: ns, removeAfterImport: true, pollMs: 100 },
    secret: { url: REDIS_URL },
  });
  await db().source.update({ where: { id: source.id }, data: { approvalThreshold: 1_000_000, maxRedrives: 100 } });

  const { batchSize } = sidekiqConfigSchema.parse({});
  // Baseline: read a batch of the connector's size, remove it, until the set is empty.
  const plainRate = async () => {
    const start = performance.now();
    let taken = 0;
    while (taken < IMPORT_N) {
      const members = await redis.zrangebyscoreBuffer(dead, '-inf', '+inf', 'LIMIT', 0, batchSize);
      if (members.length === 0) break;
      await redis.zrem(dead, ...members);
      taken += members.length;
    }
    return IMPORT_N / ((performance.now() - start) / 1000);
  };
  // Baseline: Sidekiq's own client, its time from inside Ruby (interpreter and gem loading left out).
  const sidekiqRate = async () => {
    const ruby = spawn('ruby', ['-e', RUBY_DELETE_ALL], {
      env: { ...process.env, REDIS_URL, DEAD_SET: dead, RUBYOPT: '-W0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    ruby.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const status = await new Promise<number | null>((resolve) => ruby.once('close', resolve));
    const r = JSON.parse(out.trim().split('\n').pop() || '{}') as { deleted?: number; seconds?: number };
    if (status !== 0 || r.deleted !== IMPORT_N || !r.seconds) throw new Error(`Sidekiq's client deleted ${r.deleted} of ${IMPORT_N} (status ${status})`);
    return IMPORT_N / r.seconds;
  };
  // The write path alone: the same rows, mapped beforehand, recorded as the import records them
  // (batches of its size, MAX_WRITES at once, on a pool of its own like the connectors'), into a source of their own.
  const ceilingSource = await createSource(SYSTEM, {
    name: 'bench-sidekiq-rows',
    team: 'bench',
    kind: 'sidekiq',
    connection: { namespace: `${ns}-rows` },
    secret: { url: REDIS_URL },
  });
  const writes = new ReplaceablePool();
  const ceilingRate = async () => {
    const rows = jobs().map((j) => ({ ...deadLetterOfEntry({ member: Buffer.from(j.text), score: j.score }, 'dead', true), generation: 0, redriveCount: 0 }));
    const batches = Array.from({ length: Math.ceil(rows.length / batchSize) }, (_, i) => rows.slice(i * batchSize, (i + 1) * batchSize));
    const policy = { id: ceilingSource.id, retentionSeconds: ceilingSource.retentionSeconds };
    const start = performance.now();
    await Promise.all(
      Array.from({ length: MAX_WRITES }, async () => {
        for (let b = batches.shift(); b; b = batches.shift()) {
          const batch = b;
          await writes.run((sql) => recordDeadLetters(policy, batch, { sql }), 'bench');
        }
      }),
    );
    return IMPORT_N / ((performance.now() - start) / 1000);
  };
  const importedSoFar = async () =>
    (await pg()<{ n: bigint }[]>`SELECT imported_total AS n FROM connector_health WHERE source_id = ${source.id}::uuid`)[0]?.n ?? 0n;
  const importRate = async (round: number) => {
    const start = performance.now();
    const connectors = await startConnectorSupervisor({ only: [source.id] });
    while ((await importedSoFar()) < BigInt(IMPORT_N * (round + 1)) || (await redis.zcard(dead)) > 0) await new Promise((r) => setTimeout(r, 20));
    const perSecond = IMPORT_N / ((performance.now() - start) / 1000);
    await connectors.stop();
    return perSecond;
  };

  const rounds: Round[] = [];
  while (rounds.length < ROUNDS) {
    await fill();
    const plainPerSecond = await plainRate();
    await fill();
    const sidekiqPerSecond = await sidekiqRate();
    await fill();
    const importPerSecond = await importRate(rounds.length);
    const ceilingPerSecond = await ceilingRate();
    rounds.push({ plainPerSecond, sidekiqPerSecond, importPerSecond, ceilingPerSecond, load: loadavg()[0]! });
    process.stderr.write(
      `[sidekiq bench] round ${rounds.length}/${ROUNDS}: import ${importPerSecond.toFixed(0)} jobs/s; plain ioredis ${plainPerSecond.toFixed(0)} (${(importPerSecond / plainPerSecond).toFixed(2)}×); ` +
        `Sidekiq's client ${sidekiqPerSecond.toFixed(0)} (${(importPerSecond / sidekiqPerSecond).toFixed(2)}×); write path alone ${ceilingPerSecond.toFixed(0)} (${(importPerSecond / ceilingPerSecond).toFixed(2)}×); load ${rounds.at(-1)!.load.toFixed(1)}\n`,
    );
  }
  await writes.end();
  const stored = await db().deadLetter.count({ where: { sourceId: source.id } });
  if (stored !== IMPORT_N * ROUNDS) throw new Error(`imported ${stored} of ${IMPORT_N * ROUNDS}`);

  // Redrive pacing, measured at a fetch of the job's queue (BRPOP, as Sidekiq's fetch reads it).
  const fetcher = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  // BRPOP waits for the first job, RPOP with a count takes what else arrived meanwhile: one round
  // trip per job would measure the round trip (milliseconds on a loaded machine), not the pacing.
  const queue = `${ns}:queue:orders`;
  const redrive = await measureRedrivePacingWhileReading(source.id, REDRIVE_RATES, REDRIVE_SECONDS, async (arrived) => {
    if (!(await fetcher.brpop(queue, 0.2))) return;
    arrived(1);
    const rest = await fetcher.rpop(queue, 1_000);
    arrived(rest?.length ?? 0);
  });
  fetcher.disconnect();

  // Only this run's keys: the machine's Redis is shared.
  for await (const keys of redis.scanStream({ match: `${ns}:*`, count: 1_000 }) as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  redis.disconnect();
  return { rounds, redrive };
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('sidekiq', import.meta.url, CHILD_FLAG, { nodeArgs: WORKER_NODE_FLAGS['connectors.ts'], timeoutMs: 420_000 });
  const against = (key: 'plainPerSecond' | 'sidekiqPerSecond' | 'ceilingPerSecond', name: string, target?: number): BenchResult =>
    importAgainst(
      `connectors.sidekiq import ${IMPORT_N} dead jobs into Postgres, removed after, vs ${name}`,
      m.rounds,
      { name, rate: (r) => r[key] },
      { unit: 'jobs/s', target },
    );
  return [
    against('sidekiqPerSecond', "Sidekiq's own client (ruby-sidekiq 6.4) reading and deleting the same jobs: JobSet#each { |job| job.delete }", 0.5),
    // Information only: Redis at memory speed is out of reach of any write to Postgres (see above).
    against('plainPerSecond', "a plain ioredis loop reading and removing the same jobs (batches of the connector's size: Redis at memory speed)"),
    against('ceilingPerSecond', 'the write path alone: the same rows, prebuilt, recorded in the same batches'),
    ...redrivePacingResults('sidekiq', 'jobs/s', m.redrive),
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
