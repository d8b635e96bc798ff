// The workers on a Redis Cluster: three redis-server nodes on loopback ports, started here with the
// machine's redis-server (cluster mode, nothing saved) and torn down after; REDIS_CLUSTER_NODES and
// the hash-tagged QUEUE_PREFIX point Triage at them. The broker runtime consumes messages and parks
// a failure (swept into Postgres), a redrive runs to completion through the redrive supervisor, and
// the maintenance worker (its own process) runs its scheduled jobs there.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedriveSupervisor } from '@/lib/redrive/supervisor';
import type { Consumer } from '@/lib/runtime';
import { waitFor } from '../support/wait-for';

// lib/ is imported only once the cluster is up and the environment names it: lib/env is read once.
const lib = async () => ({
  ...(await import('@/lib/broker')),
  ...(await import('@/lib/db')),
  ...(await import('@/lib/env')),
  ...(await import('@/lib/queue')),
  ...(await import('@/lib/redrive')),
  ...(await import('@/lib/redrive/supervisor')),
  ...(await import('@/lib/runtime')),
  ...(await import('../support/db')),
  ...(await import('./redrive-support')),
});
let L: Awaited<ReturnType<typeof lib>>;
let ports: number[] = [];

const root = fileURLToPath(new URL('../..', import.meta.url));
const saved = { nodes: process.env.REDIS_CLUSTER_NODES, prefix: process.env.QUEUE_PREFIX };
const nodes: ChildProcess[] = [];
const dir = mkdtempSync(path.join(tmpdir(), 'triage-redis-cluster-'));
let supervisor: RedriveSupervisor | undefined;
let consumer: Consumer | undefined;

const listens = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer().once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/** Three ports in 17000-19999 whose cluster bus ports (port + 10000) are free too. */
async function clusterPorts(): Promise<number[]> {
  const ports: number[] = [];
  for (let p = 17_000 + Math.floor(Math.random() * 2_900); ports.length < 3 && p < 20_000; p++) {
    if ((await listens(p)) && (await listens(p + 10_000))) ports.push(p);
  }
  if (ports.length < 3) throw new Error('no three free ports for the Redis Cluster');
  return ports;
}

const cli = (port: number, ...args: string[]) => spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });

beforeAll(async () => {
  ports = await clusterPorts();
  for (const port of ports) {
    const node = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        path.join(dir, `nodes-${port}.conf`),
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    nodes.push(node);
  }
  for (const port of ports) await waitFor(`redis-server on ${port}`, async () => cli(port, 'PING').stdout.trim() === 'PONG', 10_000);
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  for (const port of ports) await waitFor(`cluster state ok on ${port}`, async () => cli(port, 'CLUSTER', 'INFO').stdout.includes('cluster_state:ok'), 15_000);
  // Before anything reads lib/env in this file; put back in afterAll (the worker process is reused).
  process.env.REDIS_CLUSTER_NODES = ports.map((p) => `127.0.0.1:${p}`).join(',');
  process.env.QUEUE_PREFIX = `{triage-cluster-${process.pid}}`;
  L = await lib();
  await L.resetDatabase();
});

afterAll(async () => {
  await consumer?.close();
  await supervisor?.stop();
  await L?.closeQueues();
  await L?.closeDb();
  for (const node of nodes) {
    const exited = new Promise((r) => node.once('exit', r));
    node.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  if (saved.nodes === undefined) delete process.env.REDIS_CLUSTER_NODES;
  else process.env.REDIS_CLUSTER_NODES = saved.nodes;
  process.env.QUEUE_PREFIX = saved.prefix;
});

describe('on a 3-node Redis Cluster', () => {
  it('runs the runtime (consume, park, sweep into Postgres), a redrive to completion and the maintenance worker', async () => {
    expect(L.env().REDIS_CLUSTER_NODES).toHaveLength(3);
    expect(L.env().QUEUE_PREFIX).toMatch(/^\{.+\}$/);
    const w = await L.world();
    const source = w.orders;
    // The handler acknowledges every message but "bad" ones, until the fix is deployed.
    let fixed = false;
    const acked: string[] = [];
    consumer = await L.consume(
      source.name,
      async (m) => {
        const text = Buffer.from(m.body).toString();
        if (text.startsWith('bad') && !fixed) throw new L.PermanentError('unknown field "gift" in order 13');
        acked.push(text);
      },
      { consumerName: 'cluster-test', consumerVersion: 'v1', concurrency: 5 },
    );
    for (let i = 0; i < 10; i++) await L.send(source.name, Buffer.from(`ok-${i}`), {}, { messageId: `ok-${i}` });
    await L.send(source.name, Buffer.from('bad-1'), {}, { messageId: 'bad-1' });

    await waitFor('ten acknowledged', async () => acked.filter((a) => a.startsWith('ok-')).length === 10);
    const parked = await waitFor('the failure parked in Postgres', () =>
      L.db()
        .deadLetter.findFirst({ where: { sourceId: source.id, messageId: 'bad-1' } })
        .then((d) => d ?? undefined),
    );
    expect(parked).toMatchObject({ status: 'open', errorMessage: 'unknown field "gift" in order 13' });
    expect(Buffer.from(parked.payload!).toString()).toBe('bad-1');
    // Write-then-delete: nothing of the message is left in the cluster once its dead letter committed.
    await waitFor('the source queue empty', async () => {
      const c = await L.producerQueue(L.QUEUES.source(source.name)).getJobCounts('wait', 'active', 'delayed', 'failed');
      return Object.values(c).every((n) => n === 0);
    });

    fixed = true;
    supervisor = await L.startRedriveSupervisor({ reconcileMs: 200, statusPollMs: 100 });
    const task = await L.startRedrive(w.support, { selection: { source: source.name }, ratePerSecond: 50 });
    const done = await waitFor('the redrive completed', async () => {
      const t = await L.db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
      return t.status === 'completed' && t.acknowledged === 1 ? t : undefined;
    });
    expect(done).toMatchObject({ total: 1, sent: 1, acknowledged: 1 });
    expect(acked).toContain('bad-1');
    expect(await L.db().deadLetter.findUniqueOrThrow({ where: { id: parked.id } })).toMatchObject({ status: 'redriven' });

    // The maintenance worker: its job schedulers and worker live in the cluster; the alarm evaluation
    // they run writes each source's stats.
    const maintenance = spawn(process.execPath, ['--import', 'tsx', 'workers/maintenance.ts'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((r) => maintenance.once('exit', r));
    try {
      const stats = await waitFor(
        'the maintenance worker evaluated the sources',
        () =>
          L.db()
            .sourceStats.findUnique({ where: { sourceId: source.id } })
            .then((s) => s ?? undefined),
        45_000,
        250,
      );
      expect(stats.openCount).toBe(0);
      const scheduled = await L.producerQueue(L.QUEUES.maintenance).getJobSchedulers();
      expect(scheduled.map((s) => s.key ?? s.name)).toEqual(expect.arrayContaining(['alarms.evaluate', 'rollups.compute', 'retention.sweep']));
    } finally {
      maintenance.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    // The queues live in the cluster, in the prefix's one slot, and not in the Redis of REDIS_URL.
    const prefix = L.env().QUEUE_PREFIX;
    const slot = cli(ports[0]!, 'CLUSTER', 'KEYSLOT', prefix).stdout.trim();
    const inSlot = ports.reduce((n, p) => n + Number(cli(p, 'CLUSTER', 'COUNTKEYSINSLOT', slot).stdout.trim() || 0), 0);
    expect(inSlot).toBeGreaterThan(0);
    const url = new URL(L.env().REDIS_URL);
    expect(
      spawnSync('redis-cli', ['-h', url.hostname, '-p', url.port || '6379', '--scan', '--pattern', `${prefix}*`], { encoding: 'utf8' }).stdout.trim(),
    ).toBe('');
    await L.producerQueue(L.QUEUES.maintenance).obliterate({ force: true });
    await L.producerQueue(L.QUEUES.source(source.name)).obliterate({ force: true });
  });
});
