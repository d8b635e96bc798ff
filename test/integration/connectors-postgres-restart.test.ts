// The RabbitMQ connector when Postgres stops answering a write. postgres.js can leave a query pending
// for good once its connection died under it (a Postgres restart does it); the connectors process
// must give up on such a write, leave its messages on the broker and go on by itself. The connectors
// process reaches a private Postgres (never the machine's shared one) through a proxy that
// black-holes two writes; the server is also restarted while the import is stalled on the second.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, db } from '@/lib/db';
import { env } from '@/lib/env';
import { startPgProxy, type PgProxy } from '../support/pg-proxy';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres';
import {
  connectorSource,
  faultTestLifecycle,
  deadLettered,
  deleteTopologies,
  depth,
  expectImportedOnce,
  FAULT_N as N,
  imported,
  spawnConnectors,
  topology,
  waitFor,
} from './connectors-rabbitmq-support';

let server: PrivatePostgres;
let proxy: PgProxy;

describe('RabbitMQ connector through a Postgres write with no answer', () => {
  beforeAll(async () => {
    server = await startPrivatePostgres('connpg');
    proxy = await startPgProxy(server.port);
    // This process (its checks) talks to the private server directly; the connectors child through the proxy.
    process.env.DATABASE_URL = server.url;
    await closeDb();
    Object.assign(env(), { DATABASE_URL: server.url });
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    server?.destroy();
  });
  faultTestLifecycle(deleteTopologies);

  it('gives up on a hung write, resumes by itself, loses nothing and writes nothing twice', { timeout: 240_000 }, async () => {
    const t = await topology();
    const sent = await deadLettered(t);
    const source = await connectorSource(t, `pghang-${randomBytes(3).toString('hex')}`, { connection: { batchSize: 100, prefetch: 400 } });
    const viaProxy = new URL(server.url);
    viaProxy.port = String(proxy.port);
    // The key claim is the first statement of a dead-letter write's transaction.
    proxy.arm('INSERT INTO dead_letter_keys', 1);
    const child = spawnConnectors({ DATABASE_URL: viaProxy.toString(), POSTGRES_STALL_MS: '2000' });
    await child.ready;
    const health = () => db().connectorHealth.findUnique({ where: { sourceId: source.id } });

    await waitFor('a first write black-holed', async () => proxy.holed() === 1, 30_000, 20);
    await waitFor('the hung write given up', async () => /no answer/.test((await health())?.lastError ?? ''), 30_000, 50);
    // A second one once it reconnects, and Postgres restarted while the import is stalled on it:
    // every session of the child is cut too.
    proxy.arm('INSERT INTO dead_letter_keys', 1);
    await waitFor('a second write black-holed', async () => proxy.holed() === 2, 30_000, 20);
    await server.restart(2_000);
    // This process's own pools met the restart too: a probe's query on a cut connection is one miss.
    const stored = () => imported(source.id).catch(() => -1);

    await waitFor('10,000 imported', async () => (await stored()) === N, 90_000, 250);
    await waitFor('the DLQ drained', async () => (await depth(t.dlq)) === 0, 30_000, 250);
    // Nothing left unacknowledged: once the child is gone, an unacknowledged message would be back on the queue.
    child.kill('SIGTERM');
    await child.exited;
    expect(await depth(t.dlq)).toBe(0);
    expect(proxy.holed()).toBe(2);
    expect((await health())?.consecutiveFailures).toBe(0);
    await expectImportedOnce(source.id, sent, N);
  });
});
