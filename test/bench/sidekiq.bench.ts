// The Sidekiq connector: import throughput from a dead set into Postgres (every job committed
// through recordDeadLetters, then removed from the dead set: removeAfterImport) against a plain
// ioredis loop that reads and removes the same jobs (ZRANGEBYSCORE a batch, ZREM it), in the same run
// (target ≥ 0.5×); and redrive pacing at 100 and 1,000 jobs/s, measured where a fetch of the job's
// queue (BRPOP, as Sidekiq's) receives them (target ±5%). On the machine's Redis (127.0.0.1:6379),
// under a namespace of this run's own (Sidekiq's keys are the connector's namespace setting), removed
// afterwards. The two sides run interleaved, ROUNDS times; the round with the median ratio is reported.
//   npx tsx test/bench/run.ts sidekiq
import type { BenchResult } from './run';
import { WORKER_NODE_FLAGS } from '../../scripts/lib/worker-flags.mjs';
import { measureRedrivePacing, redrivePacingResults, type RedriveFigure } from './connector-redrive';
import { runBenchChild, runWhenFlagged } from './support';

const CHILD_FLAG = '--sidekiq-bench-child';
const REDIS_URL = 'redis://127.0.0.1:6379';
// A few thousand per side: the default bench stays short.
const IMPORT_N = Number(process.env.BENCH_SIDEKIQ_N ?? 5_000);
const ROUNDS = 3;
const REDRIVE_RATES = [100, 1_000];
const REDRIVE_SECONDS = 4;

/** One interleaved round: the plain loop's rate, the import's, the 1-minute load average after it. */
type Round = Record<'plainPerSecond' | 'importPerSecond' | 'load', number>;
type Measured = { rounds: Round[]; redrive: RedriveFigure[] };

async function child(): Promise<void> {
  const { randomBytes } = await import('node:crypto');
  const { deflateSync } = await import('node:zlib');
  const { loadavg } = await import('node:os');
  const { Redis } = await import('ioredis');
  const { SYSTEM } = await import('@/lib/auth');
  const { createTeam } = await import('@/lib/admin/teams');
  const { createSource } = await import('@/lib/sources/create-source');
  const { startConnectorSupervisor } = await import('@/lib/connectors/supervisor');
  const { closeDb, db, pg } = await import('@/lib/db');
  const { closeQueues } = await import('@/lib/queue');

  const ns = `triage-bench-sk-${process.pid}`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const dead = `${ns}:dead`;

  /** IMPORT_N dead jobs as Sidekiq 6.4 kills them (retry: 0, the backtrace compressed). */
  // JobRetry#compress_backtrace: base64 (lines of 60) of the zlib-deflated JSON array.
  const backtrace = `${deflateSync(JSON.stringify(["app/jobs/order_job.rb:12:in `perform'", "sidekiq/processor.rb:196:in `execute_job'"])).toString('base64').replace(/(.{60})/g, '$1\n')}\n`;
  async function fill(): Promise<void> {
    const now = Date.now() / 1000;
    for (let start = 0; start < IMPORT_N; start += 1_000) {
      const m = redis.multi();
      for (let i = start; i < Math.min(IMPORT_N, start + 1_000); i++) {
        const at = now + i / 1e6;
        const job = {
          retry: 0, queue: 'orders', backtrace: true, class: 'OrderJob', args: [{ order: i, sku: 'A-1', qty: 2, note: randomBytes(48).toString('hex') }],
          jid: randomBytes(12).toString('hex'), created_at: at, enqueued_at: at, error_message: `Order ${i} rejected: unknown field "giftWrap"`,
          error_class: 'ArgumentError', failed_at: at, retry_count: 0, error_backtrace: backtrace,
        };
        m.zadd(dead, String(at), JSON.stringify(job));
      }
      m.sadd(`${ns}:queues`, 'orders');
      await m.exec();
    }
  }

  await createTeam(SYSTEM, { name: 'bench' });
  const source = await createSource(SYSTEM, { name: 'bench-sidekiq', team: 'bench', kind: 'sidekiq', connection: { namespace: ns, removeAfterImport: true, pollMs: 100 }, secret: { url: REDIS_URL } });
  await db().source.update({ where: { id: source.id }, data: { approvalThreshold: 1_000_000, maxRedrives: 100 } });

  // Baseline: read a batch of the connector's size, remove it, until the set is empty.
  const plainRate = async () => {
    const start = performance.now();
    let taken = 0;
    while (taken < IMPORT_N) {
      const members = await redis.zrangebyscoreBuffer(dead, '-inf', '+inf', 'LIMIT', 0, 500);
      if (members.length === 0) break;
      await redis.zrem(dead, ...members);
      taken += members.length;
    }
    return IMPORT_N / ((performance.now() - start) / 1000);
  };
  const importedSoFar = async () => (await pg()<{ n: bigint }[]>`SELECT imported_total AS n FROM connector_health WHERE source_id = ${source.id}::uuid`)[0]?.n ?? 0n;
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
    const importPerSecond = await importRate(rounds.length);
    rounds.push({ plainPerSecond, importPerSecond, load: loadavg()[0]! });
    process.stderr.write(`[sidekiq bench] round ${rounds.length}/${ROUNDS}: plain ${plainPerSecond.toFixed(0)} jobs/s, import ${importPerSecond.toFixed(0)} jobs/s, ratio ${(importPerSecond / plainPerSecond).toFixed(2)}×, load ${rounds.at(-1)!.load.toFixed(1)}\n`);
  }
  const stored = await db().deadLetter.count({ where: { sourceId: source.id } });
  if (stored !== IMPORT_N * ROUNDS) throw new Error(`imported ${stored} of ${IMPORT_N * ROUNDS}`);

  // Redrive pacing, measured at a fetch of the job's queue (BRPOP, as Sidekiq's fetch reads it).
  const fetcher = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let arrivals: number[] = [];
  let fetching = true;
  const fetchLoop = (async () => {
    // BRPOP waits for the first job, RPOP with a count takes what else arrived meanwhile: one round
    // trip per job would measure the round trip (milliseconds on a loaded machine), not the pacing.
    const queue = `${ns}:queue:orders`;
    while (fetching) {
      if (!(await fetcher.brpop(queue, 0.2))) continue;
      arrivals.push(performance.now());
      const rest = await fetcher.rpop(queue, 1_000);
      const at = performance.now();
      for (let i = 0; i < (rest?.length ?? 0); i++) arrivals.push(at);
    }
  })();
  const redrive = await measureRedrivePacing(source.id, REDRIVE_RATES, REDRIVE_SECONDS, { arrivals: () => arrivals, reset: () => (arrivals = []) });
  fetching = false;
  await fetchLoop;
  fetcher.disconnect();

  // Only this run's keys: the machine's Redis is shared.
  for await (const keys of redis.scanStream({ match: `${ns}:*`, count: 1_000 }) as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  redis.disconnect();
  await closeQueues();
  await closeDb();
  process.stdout.write(`${JSON.stringify({ rounds, redrive } satisfies Measured)}\n`);
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('sidekiq', import.meta.url, CHILD_FLAG, { nodeArgs: WORKER_NODE_FLAGS['connectors.ts'], timeoutMs: 300_000 });
  const ratio = (r: Round) => r.importPerSecond / r.plainPerSecond;
  const median = [...m.rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(m.rounds.length / 2)]!;
  return [
    {
      name: `connectors.sidekiq import ${IMPORT_N} dead jobs into Postgres, removed after (median ratio of ${m.rounds.length} interleaved rounds, ratios ${m.rounds.map((r) => ratio(r).toFixed(2)).join(' / ')}, load ${m.rounds.map((r) => r.load.toFixed(1)).join(', ')})`,
      value: Number(median.importPerSecond.toFixed(0)),
      unit: 'jobs/s',
      baseline: { name: 'plain ioredis loop reading and removing the same jobs', value: Number(median.plainPerSecond.toFixed(0)) },
      target: '≥ 0.5× baseline',
      met: ratio(median) >= 0.5,
    },
    ...redrivePacingResults('sidekiq', 'jobs/s', m.redrive),
  ];
}

runWhenFlagged(CHILD_FLAG, child);
