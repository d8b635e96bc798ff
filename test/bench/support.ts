// The parent side every database bench shares: a fresh migrated database and Redis prefix, the bench
// file re-run as a child process (so its pools, caches and memory figures are its own), the child's
// last stdout line read as its JSON result, the database dropped afterwards. And the figures the
// benches share: timed queries (p50, p95), an import's rate against its baseline (the median round).
import { spawn } from 'node:child_process';
import { type Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type postgres from 'postgres';
import type { BenchResult } from './run';
import { closeDb } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { closeRedis } from '@/lib/redis';

/**
 * Runs the bench file at `moduleUrl` again as a child with `childFlag`, on a fresh database, and
 * resolves with its result. The bench files import lib at their top, so the runner loads it too but
 * never calls it: lib reads its environment once per process, and the child's is set here (`env` adds
 * to it).
 */
export async function runBenchChild<T>(
  name: string,
  moduleUrl: string,
  childFlag: string,
  opts: { nodeArgs?: string[]; timeoutMs?: number; replicaPort?: number; env?: Record<string, string> } = {},
): Promise<T> {
  const { dropDatabase, freshTestDatabase } = await import('../../scripts/lib/database.mjs');
  const url = await freshTestDatabase(process.env.DATABASE_URL ?? 'postgresql://localhost:5432/triage', `bench_${name}`);
  // `replicaPort`: a streaming replica of DATABASE_URL's server there, for the child's reads.
  const replica = opts.replicaPort ? Object.assign(new URL(url), { port: String(opts.replicaPort) }).toString() : undefined;
  try {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', fileURLToPath(moduleUrl), childFlag], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        ...(replica ? { DATABASE_REPLICA_URL: replica } : {}),
        QUEUE_PREFIX: `triage-bench-${name}-${process.pid}`,
        LOG_LEVEL: 'warn',
        TRIAGE_STATE_DIR: '.triage/bench',
        ...opts.env,
      },
      // The child's progress lines go straight to the terminal; only its result comes back.
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: opts.timeoutMs ?? 300_000,
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, sig) => resolve([code, sig]));
    });
    const line = stdout.trim().split('\n').pop() ?? '';
    if (status !== 0 || !/^[[{]/.test(line)) throw new Error(`${name} bench child failed (status ${status}, signal ${signal})`);
    return JSON.parse(line) as T;
  } finally {
    await dropDatabase(url);
  }
}

/**
 * The built app started as `npm start` starts it (scripts/serve.mjs, `processes` servers on one free
 * loopback port), with fresh production secrets; resolves once /api/health answers.
 */
export async function serveApp(opts: {
  processes: number;
  log: (m: string) => void;
  nodeArgs?: string[];
}): Promise<{ base: string; port: number; pid: number; stop(): Promise<void> }> {
  const { randomBytes } = await import('node:crypto');
  const { buildIfStale } = await import('../../scripts/lib/build.mjs');
  const { freePort } = await import('../../scripts/lib/free-port.mjs');
  // Fresh production secrets for this process's build and app: lib/log reads lib/env at import, and a
  // production env refuses to load without them (the build prerenders routes that import it).
  process.env.AUTH_SECRET ??= randomBytes(32).toString('base64');
  process.env.AUDIT_CHECKPOINT_KEY ??= randomBytes(32).toString('base64');
  buildIfStale({ log: opts.log });
  const port = await freePort();
  const server = spawn(process.execPath, [...(opts.nodeArgs ?? []), 'scripts/serve.mjs', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, WEB_CONCURRENCY: String(opts.processes) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const stop = async () => {
    server.kill('SIGTERM');
    await exited;
  };
  const base = `http://127.0.0.1:${port}`;
  for (let t = Date.now(); ; ) {
    if (
      await fetch(`${base}/api/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (server.exitCode !== null || Date.now() - t > 120_000) {
      await stop();
      throw new Error('the app did not start (scripts/serve.mjs)');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { base, port, pid: server.pid!, stop };
}

/**
 * One POST of an ingest batch with node:http over a keep-alive agent (the leanest client, so the
 * load generator takes as little as it can of the cores the app and Postgres share with it);
 * resolves on 200, rejects with the answer otherwise.
 */
/** What a forwarder was told to wait, over the batches it sent: 503s with Retry-After, and the time waited. */
export const throttledForwarder = { refusals: 0, waitedMs: 0 };

/**
 * POST one batch as a well-behaved forwarder: a 503 (Triage over its write budget) is sent again after
 * its Retry-After, counted in throttledForwarder; anything else but a 200 rejects.
 */
export async function postIngestBatch(
  agent: Agent,
  to: { host: string; port: number | string; source: string; token: string },
  body: Uint8Array,
): Promise<void> {
  for (;;) {
    const answer = await postOnce(agent, to, body);
    if (answer.status === 200) return;
    if (answer.status !== 503 || !answer.retryAfter) throw new Error(`ingest answered ${answer.status}: ${answer.text}`);
    throttledForwarder.refusals++;
    const t = performance.now();
    await new Promise((r) => setTimeout(r, answer.retryAfter! * 1000));
    throttledForwarder.waitedMs += performance.now() - t;
  }
}

function postOnce(
  agent: Agent,
  to: { host: string; port: number | string; source: string; token: string },
  body: Uint8Array,
): Promise<{ status: number; retryAfter: number | null; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: to.host,
        port: to.port,
        method: 'POST',
        path: `/api/v1/sources/${to.source}/dead-letters`,
        headers: { authorization: `Bearer ${to.token}`, 'content-type': 'application/json', 'content-length': body.byteLength },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const retryAfter = Number(res.headers['retry-after']);
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
            text: Buffer.concat(parts).toString(),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `fn` run `warmup` times, then timed `runs` times: the durations in ms, sorted, and their quantiles. */
export async function timeRuns(runs: number, warmup: number, fn: () => Promise<unknown>): Promise<{ ms: number[]; at: (q: number) => number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { ms, at: (q) => ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)]! };
}

/** What `timed` measured: a query's p50 and p95 (ms) over `runs`, and whether the page target applies to it. */
export interface Timing {
  name: string;
  p95: number;
  p50: number;
  runs: number;
  target: boolean;
}

/** `fn` timed `runs` times after `warmup` runs (timeRuns): its p50 and p95. */
export async function timed(name: string, runs: number, fn: () => Promise<unknown>, target = true, warmup = 5): Promise<Timing> {
  const { at } = await timeRuns(runs, warmup, fn);
  return { name, p95: at(0.95), p50: at(0.5), runs, target };
}

/** Timings as results: each one's p95 (its p50 beside it in the name), against `targetMs` where the target applies. */
export function p95Results(timings: Timing[], targetMs: number, digits: number): BenchResult[] {
  return timings.map((m) => ({
    name: m.runs > 1 ? `${m.name}: p95 of ${m.runs} (p50 ${m.p50.toFixed(1)} ms)` : m.name,
    value: Number(m.p95.toFixed(digits)),
    unit: 'ms',
    ...(m.target ? { target: `p95 ≤ ${targetMs} ms`, met: m.p95 <= targetMs } : {}),
  }));
}

/** The item with the median `by` (the upper one of an even count). */
export function medianBy<T>(items: T[], by: (item: T) => number): T {
  return [...items].sort((a, b) => by(a) - by(b))[Math.floor(items.length / 2)]!;
}

/**
 * An import's rate against a baseline measured in the same run. Of several interleaved rounds the
 * one with the median ratio is reported, each round's ratio and 1-minute load average in the name
 * (on a shared machine a change in load hits both sides of a round: the ratio is the figure to
 * read); `target` is the least ratio, `detail` more to say of the median round.
 */
export function importAgainst<R extends { importPerSecond: number; load?: number }>(
  name: string,
  rounds: R[],
  baseline: { name: string; rate: (round: R) => number },
  opts: { unit?: string; target?: number; detail?: (median: R) => string } = {},
): BenchResult {
  const ratio = (r: R) => r.importPerSecond / baseline.rate(r);
  const median = medianBy(rounds, ratio);
  const notes = [
    ...(rounds.length > 1
      ? [
          `median ratio of ${rounds.length} interleaved rounds, ratios ${rounds.map((r) => ratio(r).toFixed(2)).join(' / ')}, load ${rounds.map((r) => (r.load ?? 0).toFixed(1)).join(', ')}`,
        ]
      : []),
    ...(opts.detail ? [opts.detail(median)] : []),
  ];
  return {
    name: notes.length > 0 ? `${name} (${notes.join('; ')})` : name,
    value: Number(median.importPerSecond.toFixed(0)),
    unit: opts.unit ?? 'msg/s',
    baseline: { name: baseline.name, value: Number(baseline.rate(median).toFixed(0)) },
    ...(opts.target === undefined ? {} : { target: `≥ ${opts.target}× baseline`, met: ratio(median) >= opts.target }),
  };
}

/** A bench file re-run as its own child (runBenchChild) with `flag`: runs `main`, exit 1 on its error. */
export function runWhenFlagged(flag: string, main: () => Promise<void>): void {
  if (!process.argv.includes(flag)) return;
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/** The bench child of runBenchChild, run with `flag`: what `measure` returns is the child's result (finishChild). */
export function measureWhenFlagged(flag: string, measure: () => Promise<unknown>): void {
  runWhenFlagged(flag, async () => finishChild(await measure()));
}

/**
 * The end of a bench child: the queues, pools and Redis connection lib opened are closed (any one
 * left open keeps the process alive), then `result` is written as the last stdout line, which
 * runBenchChild reads. The child exits there: its figure is out, and a handle some library left open
 * must not hold it until runBenchChild's timeout.
 */
export async function finishChild(result: unknown): Promise<never> {
  await closeQueues();
  await closeDb();
  await closeRedis();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

/**
 * Drops dead_letters' secondary indexes before a bulk load (several times faster than maintaining them
 * row by row) and returns their CREATE statements, to run after it. pg_indexes shows an index of a
 * partitioned table as `CREATE INDEX … ON ONLY dead_letters`, which builds nothing on the partitions
 * (an invalid parent index: every query then scans them whole): the statements returned drop ONLY.
 */
export async function dropDeadLetterIndexes(sql: postgres.Sql): Promise<{ name: string; create: string }[]> {
  const indexes = await sql<{ name: string; def: string }[]>`
    SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
    WHERE i.tablename = 'dead_letters' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`;
  for (const ix of indexes) await sql`DROP INDEX ${sql(ix.name)}`;
  return indexes.map((ix) => ({ name: ix.name, create: ix.def.replace(' ON ONLY ', ' ON ') }));
}

/**
 * After a raw load into dead_letters (not through lib/intake, the writer that keeps them): the
 * sources' error types, which the list's error-type filter reads, as the migration fills them.
 */
export async function noteLoadedErrorTypes(sql: postgres.Sql): Promise<void> {
  await sql`INSERT INTO source_error_types (source_id, error_type)
            SELECT DISTINCT source_id, error_type FROM dead_letters WHERE error_type IS NOT NULL
            ON CONFLICT DO NOTHING`;
}
