// Helpers for the Sidekiq connector tests: a Redis server of the suite's own (a temp dir on a free
// port: Sidekiq's keys are not prefixed, and a fault test stops and starts it; the machine's Redis
// is shared and never touched), a real Sidekiq (Debian's ruby-sidekiq) running the worker under
// test/peers/sidekiq/ as its own process, and jobs enqueued in Sidekiq's wire format.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { freePort } from '../support/private-postgres';
import { commerceConnectorSource, waitFor } from './connectors-rabbitmq-support';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface PrivateRedis {
  url: string;
  port: number;
  /** A client for the test's own reads and writes (reconnects after a restart). */
  client: Redis;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** redis-server on a free port; the append-only file keeps the data across stop and start. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'triage-redis-'));
  const port = await freePort();
  let server: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, retryStrategy: () => 100 });
  client.on('error', () => {});
  async function start() {
    if (server && server.exitCode === null) return;
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    await waitFor(
      'the private Redis',
      async () =>
        probe.connect().then(
          () => true,
          () => false,
        ),
      15_000,
      50,
    );
    probe.disconnect();
  }
  async function stop() {
    const s = server;
    server = null;
    if (!s || s.exitCode !== null) return;
    const exited = new Promise((r) => s.once('exit', r));
    s.kill('SIGTERM');
    await exited;
  }
  await start();
  await client.connect();
  return {
    url,
    port,
    client,
    start,
    stop,
    async destroy() {
      client.disconnect();
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface SidekiqProcess {
  stop(): Promise<void>;
}

/** `sidekiq -r test/peers/sidekiq/worker.rb` on `url`, reading `queues`; resolves once its heartbeat is in Redis. */
export async function startSidekiq(redis: PrivateRedis, queues: string[], concurrency = 10): Promise<SidekiqProcess> {
  const before = new Set(await redis.client.smembers('processes'));
  const child = spawn('sidekiq', ['-r', './test/peers/sidekiq/worker.rb', ...queues.flatMap((q) => ['-q', q]), '-c', String(concurrency), '-t', '2'], {
    cwd: root,
    env: { ...process.env, REDIS_URL: redis.url, RUBYOPT: '-W0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(
    `Sidekiq's heartbeat (${output})`,
    async () => {
      if (child.exitCode !== null) throw new Error(`sidekiq exited: ${output}`);
      return (await redis.client.smembers('processes')).some((p) => !before.has(p));
    },
    30_000,
    100,
  );
  return {
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export const jid = () => randomBytes(12).toString('hex');

export interface WireJob {
  jid: string;
  class: 'PoisonJob' | 'RetriedJob';
  args: unknown[];
}

/** Enqueue as Sidekiq::Client does: the job's JSON LPUSHed onto queue:<name>, the queue in "queues". */
export async function enqueue(redis: Redis, queue: string, jobs: WireJob[], namespace = ''): Promise<void> {
  const now = Date.now() / 1000;
  for (let i = 0; i < jobs.length; i += 1_000) {
    const m = redis.multi();
    m.sadd(`${namespace}queues`, queue);
    for (const j of jobs.slice(i, i + 1_000)) {
      m.lpush(
        `${namespace}queue:${queue}`,
        JSON.stringify({
          retry: j.class === 'PoisonJob' ? 0 : 1,
          queue,
          backtrace: true,
          class: j.class,
          args: j.args,
          jid: j.jid,
          created_at: now,
          enqueued_at: now,
        }),
      );
    }
    await m.exec();
  }
}

/** Orders n = from…from+count-1 as poison jobs (every `retriedEvery`th one a retried job). */
export function orders(count: number, from = 0, retriedEvery = 0): WireJob[] {
  return Array.from({ length: count }, (_, k) => {
    const n = from + k;
    return { jid: jid(), class: retriedEvery && n % retriedEvery === 0 ? 'RetriedJob' : 'PoisonJob', args: [{ n, note: `order ${n} · ü` }] };
  });
}

/** The dead set as jid → the member's exact bytes. */
export async function deadSet(redis: Redis, namespace = ''): Promise<Map<string, Buffer>> {
  const members = await redis.zrangeBuffer(`${namespace}dead`, '0', '-1');
  return new Map(members.map((m) => [(JSON.parse(m.toString('utf8')) as { jid: string }).jid, m]));
}

let sources = 0;

export async function sidekiqSource(url: string, connection: Record<string, unknown> = {}) {
  return commerceConnectorSource({ name: `rails-${++sources}`, kind: 'sidekiq', maxRedrives: 3, connection: { pollMs: 300, ...connection }, secret: { url } });
}
