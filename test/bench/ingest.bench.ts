// Ingest API throughput (target ≥ 10,000 dead letters/s and ≥ 0.4× raw COPY): batches of 500 dead
// letters with 1 KiB JSON payloads POSTed over HTTP to /api/v1/sources/{source}/dead-letters of the
// built app, started as `npm start` starts it (scripts/serve.mjs: one process per core, or
// WEB_CONCURRENCY), two batches in flight per process: token check, body read, JSON parse,
// validation, base64, SHA-256, fingerprint, cluster upsert, binary COPY, cluster counts.
// Beside it, for information, the route handler called in one process without HTTP (a Request, as
// Next calls it). Baseline: one raw binary COPY of the same rows straight into dead_letters,
// everything precomputed. Each run starts from empty tables and a checkpoint, without insert-triggered
// vacuums, after a warm-up on other dead letters (a server that has been up a while runs optimized
// code); the baseline and the HTTP API run three times each and the median run is reported. Then,
// how fast the search indexer makes the ingested rows searchable (trigram indexing, off the ingest
// path since it cost three quarters of every insert), against the ingest rate of the same run. Runs in a child
// process with its own database; builds the app first when its sources changed (scripts/lib/build.mjs).
//   npx tsx test/bench/run.ts ingest     (BENCH_PROF=1: CPU profiles in /tmp/prof, of the app's processes in /tmp/prof-app)
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { CopyColumn } from '@/lib/db/copy-binary';
import type { BenchResult } from './run';
import { measureWhenFlagged, postIngestBatch, runBenchChild, runWhenFlagged, serveApp } from './support';
import { POST } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { createTeam } from '@/lib/admin/teams';
import { createIngestToken } from '@/lib/admin/tokens';
import { SYSTEM } from '@/lib/auth';
import { fingerprint } from '@/lib/clustering';
import { closeDb, pg as pgPool } from '@/lib/db';
import { binaryCopyChunks } from '@/lib/db/copy-binary';
import { env } from '@/lib/env';
import { closeIngestSql } from '@/lib/ingest/ingest-sql';
import { sha256Hex } from '@/lib/intake/record-dead-letters';
import { drainBacklog } from '@/lib/search';
import { createSource } from '@/lib/sources/create-source';

const _ROOT = fileURLToPath(new URL('../..', import.meta.url));

const CHILD_FLAG = '--ingest-bench-child';
const API_FLAG = '--ingest-bench-api';
const BATCH = 500;
const BATCHES = 80;
const WARMUP_BATCHES = 6;
/** Measured runs of the baseline and of the API over HTTP; the median one is reported. */
const RUNS = 3;
const IN_FLIGHT = 2;
/** As scripts/serve.mjs: WEB_CONCURRENCY, else one process per core. */
const PROCESSES = process.env.WEB_CONCURRENCY ? Number(process.env.WEB_CONCURRENCY) : availableParallelism();
const PAYLOAD_BYTES = 1024;

const ERRORS = Array.from({ length: 20 }, (_, k) => ({
  type: `Error${k}`,
  message: (i: number) => `failed to apply step ${k} to order ${i}: upstream answered ${500 + (i % 4)}`,
}));

const WORDS = (
  'gift wrap express standard parcel locker street avenue road city north south east west garden house blue red green small large ' +
  'medium cotton shirt shoes socks coffee beans grinder kettle lamp desk chair table book pen paper card voucher refund return exchange ' +
  'warehouse berlin paris madrid lisbon vienna prague warsaw oslo dublin rome amsterdam brussels zurich tallinn riga vilnius'
).split(' ');

/** An order-like JSON payload of exactly PAYLOAD_BYTES bytes, different for every i (the storm bench sends them too). */
export function payload(i: number): Buffer {
  const h = createHash('sha256').update(String(i)).digest();
  const word = (k: number) => WORDS[h[k % 32]! % WORDS.length]!;
  const items = Array.from(
    { length: 6 },
    (_, k) => `{"sku":"sku-${(i * 7 + k) % 9973}","name":"${word(k)} ${word(k + 6)}","qty":${(h[k]! % 5) + 1},"price":${h[k + 8]! * 13}}`,
  );
  const head = `{"order":${i},"customer":{"id":"c-${i % 50_000}","name":"${word(20)} ${word(21)}","city":"${word(22)}"},"items":[${items.join(',')}],"note":"`;
  let note = '';
  for (let k = 23; note.length < PAYLOAD_BYTES; k++) note += `${word(k)} `;
  return Buffer.from(`${head + note.slice(0, PAYLOAD_BYTES - head.length - 2)}"}`);
}

/**
 * CPU time of the local processes `which` picks by pid, parent pid and name, ms (Linux /proc; null when
 * none is found, e.g. Postgres runs elsewhere). With it, the bench shows where a dead letter's CPU goes.
 */
function cpuMs(which: (p: { pid: number; ppid: number; name: string }) => boolean): number | null {
  let ticks = 0;
  let found = false;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      if (!which({ pid: Number(pid), ppid: Number(fields[1]), name: stat.slice(stat.indexOf('(') + 1, close) })) continue;
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
      found = true;
    } catch {
      // the process ended meanwhile
    }
  }
  return found ? ticks * 10 : null; // USER_HZ is 100 on Linux
}
const postgresCpuMs = () => cpuMs((p) => p.name.startsWith('postgres'));
/** The app as `npm start` runs it: the supervisor and the servers it forked. */
const appCpuMs = (root: number) => cpuMs((p) => p.pid === root || p.ppid === root);

interface Result {
  /** Over HTTP, against the built app as `npm start` serves it. */
  api: number;
  /** The route handler called in one process, no HTTP. */
  apiOne: number;
  copy: number;
  /** CPU per dead letter during the HTTP run, µs: the app's processes and Postgres. */
  nodeCpuUs: number;
  postgresCpuUs: number | null;
  /** Dead letters per second the search indexer makes searchable, from the backlog the API run left. */
  indexer: number;
}

const TOTAL = BATCH * BATCHES;
const median = <T extends { rate: number }>(runs: T[]): T => [...runs].sort((a, b) => a.rate - b.rate)[Math.floor(runs.length / 2)]!;
const utf8 = new TextEncoder();

/** Dead letter i of the run, the same in every process (dead times count up to `now`). */
function row(i: number, now: number) {
  const e = ERRORS[i % ERRORS.length]!;
  return { messageId: `msg-${i}`, payload: payload(i), errorType: e.type, errorMessage: e.message(i), deadAt: new Date(now - (TOTAL - i) * 10) };
}

function batchBody(b: number, now: number): string {
  return JSON.stringify({
    deadLetters: Array.from({ length: BATCH }, (_, k) => {
      const r = row(b * BATCH + k, now);
      return {
        messageId: r.messageId,
        payload: r.payload.toString('base64'),
        contentType: 'application/json',
        headers: { 'x-tenant': 'acme' },
        reason: 'MaxReceives',
        error: { type: r.errorType, message: r.errorMessage },
        receiveCount: 3,
        deadAt: r.deadAt.toISOString(),
      };
    }),
  });
}

/** Sends every item of the list, `n` at a time, in order of start. */
export async function inFlight<T>(list: T[], n: number, send: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      for (let i = next++; i < list.length; i = next++) await send(list[i]!);
    }),
  );
}

/** A dead letter as the write path stores it, precomputed: the raw COPY baseline's row. */
export interface BaselineRow {
  messageId: string;
  errorType: string;
  errorMessage: string;
  deadAt: Date;
  payload: Uint8Array;
  sha: string;
  history: unknown;
  fp: string;
}

/** The columns of the raw binary COPY baseline (this bench and the storm bench). */
export function baselineColumns(sourceId: string, expires: Date): CopyColumn<BaselineRow>[] {
  return [
    { name: 'source_id', type: 'uuid', get: () => sourceId },
    { name: 'message_id', type: 'text', get: (r) => r.messageId },
    { name: 'reason', type: 'enum', get: () => 'MaxReceives' },
    { name: 'error_type', type: 'text', get: (r) => r.errorType },
    { name: 'error_message', type: 'text', get: (r) => r.errorMessage },
    { name: 'receive_count', type: 'int4', get: () => 3 },
    { name: 'dead_at', type: 'timestamptz', get: (r) => r.deadAt },
    { name: 'payload', type: 'bytea', get: (r) => r.payload },
    { name: 'payload_size', type: 'int4', get: (r) => r.payload.byteLength },
    { name: 'payload_sha256', type: 'text', get: (r) => r.sha },
    { name: 'content_type', type: 'text', get: () => 'application/json' },
    { name: 'headers', type: 'jsonb', get: () => ({ 'x-tenant': 'acme' }) },
    { name: 'failure_history', type: 'jsonb', get: (r) => r.history },
    { name: 'fingerprint', type: 'text', get: (r) => r.fp },
    { name: 'status', type: 'enum', get: () => 'open' },
    { name: 'expires_at', type: 'timestamptz', get: () => expires },
  ];
}

type ToApi = { batches: number[]; token: string; now: number } | 'go' | 'bye';
type FromApi = 'warm' | { cpuUs: number };

/**
 * One app process: builds its batches' bodies, warms up on WARMUP_BATCHES of other dead letters (a
 * server that has been up a while runs optimized code), says so, and on 'go' POSTs its batches to the
 * route handler, IN_FLIGHT at a time; answers with the CPU it spent meanwhile.
 */
async function apiProcess(): Promise<void> {
  const message = () => new Promise<ToApi>((resolve) => process.once('message', resolve));
  const job = (await message()) as Exclude<ToApi, string>;
  const bodies = job.batches.map((b) => batchBody(b, job.now));
  const warmup = Array.from({ length: WARMUP_BATCHES }, (_, w) => batchBody(BATCHES + job.batches[0]! * WARMUP_BATCHES + w, job.now));
  const ingest = (list: string[]) =>
    inFlight(list, IN_FLIGHT, async (body) => {
      const res = await POST(
        new Request('http://bench.local/api/v1/sources/orders/dead-letters', {
          method: 'POST',
          headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
          body,
        }),
        { params: Promise.resolve({ source: 'orders' }) },
      );
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    });
  await ingest(warmup);
  const go = message();
  process.send!('warm' satisfies FromApi);
  await go;
  const cpu0 = process.cpuUsage();
  await ingest(bodies);
  const cpu = process.cpuUsage(cpu0);
  // Connections stay open until the parent has read Postgres's CPU: a closed backend's is gone.
  const bye = message();
  process.send!({ cpuUs: cpu.user + cpu.system } satisfies FromApi);
  await bye;
  await closeIngestSql();
  await closeDb();
  process.disconnect();
  // The route's lib may hold other pools (Redis, a timer of its own); the figures are sent, so the
  // child ends here rather than wait on a handle it does not own.
  process.exit(0);
}

async function child(): Promise<Result> {
  const pg = pgPool();

  await createTeam(SYSTEM, { name: 'commerce' });
  const source = await createSource(SYSTEM, { name: 'orders', team: 'commerce', kind: 'ingest' });
  const { token } = await createIngestToken(SYSTEM, 'orders');
  const now = Date.now();
  const rows = Array.from({ length: TOTAL }, (_, i) => row(i, now));
  // The baseline's rows as the write path would store them, encoded before the clock starts.
  const expires = new Date(now + 14 * 86_400_000);
  type Stored = (typeof rows)[number] & { sha: string; history: unknown; fp: string };
  const stored: Stored[] = rows.map((r) => ({
    ...r,
    sha: sha256Hex(r.payload),
    history: [{ reason: 'MaxReceives', errorType: r.errorType, errorMessage: r.errorMessage, count: 1, firstAt: r.deadAt, lastAt: r.deadAt }],
    fp: fingerprint({ type: r.errorType, message: r.errorMessage }).key,
  }));
  const columns = baselineColumns(source.id, expires);
  const chunks = [...binaryCopyChunks(columns, stored)];

  // Empty tables, and a checkpoint now rather than in the middle of the next measured run (each run
  // writes a few hundred MB of WAL; a checkpoint inside one doubled Postgres's CPU per row).
  // No insert-triggered autovacuum on the tables the runs fill: one landing inside a run (likelier in
  // the API's longer runs than in COPY's) made Postgres's CPU per row swing from 45 to 110 µs. It is
  // maintenance any writer of these rows pays later, not ingest work. Autoanalyze stays on: without it
  // the plans of a table emptied by TRUNCATE never learn that it has grown.
  // dead_letters is partitioned: the setting goes on its partitions (a partitioned parent takes none).
  const partitions = (await pg<{ name: string }[]>`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'dead_letters'::regclass`).map(
    (r) => r.name,
  );
  await pg.unsafe(
    [...partitions, 'search_backlog', 'dead_letter_search', 'clusters', 'cluster_sources', 'cluster_hours']
      .map((t) => `ALTER TABLE ${t} SET (autovacuum_vacuum_insert_threshold = -1)`)
      .join('; '),
  );
  const empty = async () => {
    await pg`TRUNCATE dead_letters, search_backlog, cluster_hours, cluster_sources, clusters CASCADE`;
    await pg`CHECKPOINT`.catch(() => undefined); // needs superuser or pg_checkpoint; noisier without
  };
  /** All batches over `processes` app processes (batch b to process b mod n); rows/s and their CPU. */
  const apiRun = async (processes: number) => {
    const kids = Array.from({ length: processes }, () =>
      fork(fileURLToPath(import.meta.url), [API_FLAG], {
        execArgv: [...process.execArgv, ...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [])],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      }),
    );
    const next = (k: ReturnType<typeof fork>) =>
      new Promise<FromApi>((resolve, reject) => {
        k.once('message', (m) => resolve(m as FromApi));
        k.once('exit', (code) => reject(new Error(`an API process exited (${code})`)));
      });
    const warm = kids.map(next);
    for (const [p, k] of kids.entries())
      k.send({ batches: Array.from({ length: BATCHES }, (_, b) => b).filter((b) => b % processes === p), token, now } satisfies ToApi);
    await Promise.all(warm);
    await empty();
    const done = kids.map(next);
    const pg0 = postgresCpuMs();
    const t = performance.now();
    for (const k of kids) k.send('go' satisfies ToApi);
    const cpu = (await Promise.all(done)).reduce((sum, m) => sum + (m as { cpuUs: number }).cpuUs, 0);
    const rate = TOTAL / ((performance.now() - t) / 1000);
    const pg1 = postgresCpuMs();
    const exited = kids.map((k) => new Promise((resolve) => k.once('exit', resolve)));
    for (const k of kids) k.send('bye' satisfies ToApi);
    await Promise.all(exited);
    const [{ n }] = (await pg`SELECT count(*)::int AS n FROM dead_letters`) as unknown as [{ n: number }];
    if (n !== TOTAL) throw new Error(`expected ${TOTAL} dead letters, found ${n}`);
    return { rate, nodeCpuUs: cpu / TOTAL, postgresCpuUs: pg0 === null || pg1 === null ? null : ((pg1 - pg0) * 1000) / TOTAL };
  };
  const copyRun = async () => {
    const runs: { rate: number }[] = [];
    for (let r = 0; r < RUNS; r++) {
      await empty();
      const t = performance.now();
      const list = columns.map((c) => c.name).join(', ');
      await pipeline(Readable.from(chunks), await pg.unsafe(`COPY dead_letters (${list}) FROM STDIN WITH (FORMAT binary)`).writable());
      runs.push({ rate: TOTAL / ((performance.now() - t) / 1000) });
    }
    return median(runs).rate;
  };

  /**
   * The batches POSTed over HTTP to the built app, started as `npm start` starts it (scripts/serve.mjs,
   * PROCESSES servers on one port), IN_FLIGHT per server; warmed up first on other dead letters.
   */
  const httpRun = async () => {
    const prof = process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-app'] : [];
    const server = await serveApp({ processes: PROCESSES, nodeArgs: prof, log: (m: string) => process.stderr.write(`[ingest bench] ${m}\n`) });
    const port = server.port;
    // node:http with keep-alive: the leanest client, so the load generator takes as little as it can
    // of the cores the app and Postgres share with it.
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT * PROCESSES });
    try {
      const post = (body: Uint8Array) => postIngestBatch(agent, { host: '127.0.0.1', port, source: 'orders', token }, body);
      const all = (list: Uint8Array[]) => inFlight(list, IN_FLIGHT * PROCESSES, post);
      await all(Array.from({ length: WARMUP_BATCHES * PROCESSES }, (_, w) => utf8.encode(batchBody(BATCHES + w, now))));
      const bodies = Array.from({ length: BATCHES }, (_, b) => utf8.encode(batchBody(b, now)));
      const runs: { rate: number; nodeCpuUs: number; postgresCpuUs: number | null }[] = [];
      for (let r = 0; r < RUNS; r++) {
        await empty();
        const [app0, pg0] = [appCpuMs(server.pid), postgresCpuMs()];
        const t = performance.now();
        await all(bodies);
        const rate = TOTAL / ((performance.now() - t) / 1000);
        const [app1, pg1] = [appCpuMs(server.pid), postgresCpuMs()];
        const [{ n }] = (await pg`SELECT count(*)::int AS n FROM dead_letters`) as unknown as [{ n: number }];
        if (n !== TOTAL) throw new Error(`expected ${TOTAL} dead letters, found ${n}`);
        process.stderr.write(
          `[ingest bench] HTTP run ${r + 1}: ${rate.toFixed(0)}/s, postgres ${pg0 === null || pg1 === null ? 'n/a' : (((pg1 - pg0) * 1000) / TOTAL).toFixed(0)} µs\n`,
        );
        runs.push({
          rate,
          nodeCpuUs: app0 === null || app1 === null ? 0 : ((app1 - app0) * 1000) / TOTAL,
          postgresCpuUs: pg0 === null || pg1 === null ? null : ((pg1 - pg0) * 1000) / TOTAL,
        });
      }
      return median(runs);
    } finally {
      agent.destroy();
      await server.stop();
    }
  };

  const copy = await copyRun();
  const one = await apiRun(1);
  const all = await httpRun();
  // From a checkpoint, as each ingest run: not one the runs' WAL forces in the middle of this one.
  await pg`CHECKPOINT`.catch(() => undefined);
  const [pgIdx0, nodeIdx0] = [postgresCpuMs(), process.cpuUsage()];
  const t = performance.now();
  // As workers/search-indexer.ts drains a backlog: SEARCH_INDEXER_CONCURRENCY batches side by side.
  const indexed = await drainBacklog({ concurrency: env().SEARCH_INDEXER_CONCURRENCY });
  const indexer = indexed / ((performance.now() - t) / 1000);
  // CPU per row as well as the rate: on a shared machine the rate swings with the load, the CPU less.
  const pgIdx1 = postgresCpuMs();
  const nodeIdx = process.cpuUsage(nodeIdx0);
  const indexerCpu = `postgres ${pgIdx0 === null || pgIdx1 === null ? 'n/a' : (((pgIdx1 - pgIdx0) * 1000) / indexed).toFixed(0)} µs, node ${((nodeIdx.user + nodeIdx.system) / indexed).toFixed(0)} µs`;
  if (indexed !== TOTAL) throw new Error(`expected ${TOTAL} dead letters indexed for search, indexed ${indexed}`);
  process.stderr.write(
    `[ingest bench] API over HTTP ${all.rate.toFixed(0)}/s with ${PROCESSES} app processes (CPU per dead letter: app ${all.nodeCpuUs.toFixed(0)} µs, ` +
      `postgres ${all.postgresCpuUs?.toFixed(0) ?? 'n/a'} µs), route handler in 1 process ${one.rate.toFixed(0)}/s (node ${one.nodeCpuUs.toFixed(0)} µs, postgres ${one.postgresCpuUs?.toFixed(0) ?? 'n/a'} µs), COPY ${copy.toFixed(0)}/s, search indexer ${indexer.toFixed(0)}/s (CPU per dead letter: ${indexerCpu})\n`,
  );
  return { api: all.rate, apiOne: one.rate, copy, indexer, nodeCpuUs: all.nodeCpuUs, postgresCpuUs: all.postgresCpuUs };
}

export async function run(): Promise<BenchResult[]> {
  const r = await runBenchChild<Result>('ingest', import.meta.url, CHILD_FLAG, { timeoutMs: 600_000 });
  const shape = `${TOTAL} dead letters in batches of ${BATCH} × ${PAYLOAD_BYTES} B JSON, ${IN_FLIGHT} in flight per process`;
  return [
    {
      name: `ingest API over HTTP, ${shape}, ${PROCESSES} app processes (npm start: one per core)`,
      value: Math.round(r.api),
      unit: 'dead letters/s',
      baseline: { name: 'raw binary COPY of the same rows', value: Math.round(r.copy) },
      target: '≥ 0.4× raw COPY and ≥ 10,000/s',
      met: r.api >= 0.4 * r.copy && r.api >= 10_000,
    },
    {
      name: `ingest route handler called in 1 process, no HTTP, ${shape} (information)`,
      value: Math.round(r.apiOne),
      unit: 'dead letters/s',
      baseline: { name: 'raw binary COPY of the same rows', value: Math.round(r.copy) },
    },
    {
      // 10,000/s on 2 cores leaves at most 200 µs of CPU per dead letter for both processes together.
      name: 'CPU per dead letter ingested over HTTP, app processes + Postgres (information: 10,000/s on 2 cores needs ≤ 200)',
      value: Math.round(r.nodeCpuUs + (r.postgresCpuUs ?? 0)),
      unit: `µs (node ${Math.round(r.nodeCpuUs)}, postgres ${r.postgresCpuUs === null ? 'n/a' : Math.round(r.postgresCpuUs)})`,
    },
    {
      // A storm's backlog drains within the storm's own duration after it ends only at ≥ 0.5× ingest.
      name: 'search indexer, making those dead letters searchable (off the ingest path, SEARCH_INDEXER_CONCURRENCY batches at once)',
      value: Math.round(r.indexer),
      unit: 'dead letters/s',
      baseline: { name: 'the ingest API over HTTP in this run', value: Math.round(r.api) },
      target: '≥ 0.5× the ingest API',
      met: r.indexer >= 0.5 * r.api,
    },
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
runWhenFlagged(API_FLAG, apiProcess);
