// The RabbitMQ connector on bad input and odd messages: a broker that is
// down, wrong credentials, a queue that does not exist — each a clear error on the source's health
// and a backoff, never a crash loop, never a credential in the row or the logs; a message with no
// message id, non-UTF-8 header bytes, a 5 MB body — recorded exactly and published back exactly.
// Also: a new source is picked up without a restart, pause/resume holds the messages on the broker,
// and the redrive destination says per item whose failure it is.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';
import type { ConsumeMessage } from 'amqplib';
import { describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { GET as listSourcesApi } from '@/app/api/v1/sources/route';
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser } from '@/lib/admin/users';
import { SYSTEM } from '@/lib/auth';
import { connectorSourceOf } from '@/lib/connectors';
import type { OutgoingRedrive } from '@/lib/redrive/destinations';
import { setImportPaused } from '@/lib/connectors/pause-import';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db } from '@/lib/db';
import {
  admin,
  connectorSource,
  connectorTestLifecycle,
  deleteTopologies,
  depth,
  outgoingOf,
  publish,
  connectorsAfterSixSeconds,
  expectBackedOff,
  storedAndLogged,
  topology,
  waitFor,
  workConsumer,
  type WorkConsumer,
  importSwitches,
  importingSource,
} from './connectors-rabbitmq-support';
import { killWorkerChildren } from '../support/worker-child';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A one-byte redrive carrying `headers`: what the broker answers depends on where it goes, not on what. */
const oneByte = (deadLetterId: bigint, messageId: string, headers: Record<string, unknown>): OutgoingRedrive =>
  outgoingRedrive({ deadLetterId, messageId, payload: Buffer.from('x'), headers });

describe('RabbitMQ connector: bad input and exact bytes', () => {
  const running = connectorTestLifecycle<WorkConsumer>(async () => {
    await killWorkerChildren();
    await deleteTopologies();
  });

  async function probe(sourceId: string) {
    const row = await db().source.findUniqueOrThrow({ where: { id: sourceId } });
    const { connector, source } = connectorSourceOf(row);
    return connector.probe(source);
  }

  it("test connection sends the AMQP credentials to no management URL but the broker's own host", async () => {
    const t = await topology();
    // A listener standing in for a host the admin typed: it must never see the broker's credentials.
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.authorization ?? '(none)');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const elsewhere = await connectorSource(t, 'mgmt-elsewhere', { connection: { managementUrl: `http://localhost:${port}` } });
      const r = await probe(elsewhere.id);
      expect(r).toMatchObject({ ok: true, facts: { management: expect.stringMatching(/not read: .*localhost.* is not the broker's host 127\.0\.0\.1/) } });
      expect(seen).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('says clearly when the broker is down, the credentials are wrong or the queue is missing, and backs off', { timeout: 60_000 }, async () => {
    const t = await topology();
    const down = await connectorSource(t, 'down', { url: 'amqp://guest:hunter2-down@127.0.0.1:1/%2F' });
    const badAuth = await connectorSource(t, 'bad-auth', { url: 'amqp://guest:hunter2-wrong@127.0.0.1:5672/%2F' });
    const missing = await connectorSource(t, 'missing', { connection: { queue: `${t.run}.nope` } });

    expect(await probe(down.id)).toMatchObject({ ok: false, error: expect.stringMatching(/RabbitMQ at 127\.0\.0\.1:1 is not reachable/) });
    expect(await probe(badAuth.id)).toMatchObject({ ok: false, error: 'RabbitMQ at 127.0.0.1:5672 refused the credentials of user "guest"' });
    expect(await probe(missing.id)).toMatchObject({ ok: false, error: `Queue "${t.run}.nope" does not exist on virtual host "/" of 127.0.0.1:5672` });
    expect(await probe((await connectorSource(t, 'fine')).id)).toMatchObject({ ok: true, facts: { exists: true, depth: 0, consumers: 0 } });

    const { child, health } = await connectorsAfterSixSeconds();
    expect(health.get(down.id)?.lastError).toMatch(/is not reachable/);
    expect(health.get(badAuth.id)?.lastError).toBe('RabbitMQ at 127.0.0.1:5672 refused the credentials of user "guest"');
    expect(health.get(missing.id)?.lastError).toMatch(/does not exist/);
    expectBackedOff(health, [down.id, badAuth.id, missing.id]);
    expect(child.process.exitCode).toBeNull();

    // No secret in the logs, the rows, the health, the audit trail or the API.
    await createUser(SYSTEM, { email: 'admin@test.local', role: 'admin', password: 'an-admin-password-1' });
    const token = await createPersonalToken(SYSTEM, 'admin@test.local');
    const api = await listSourcesApi(new Request('http://triage.test/api/v1/sources', { headers: { authorization: `Bearer ${token.token}` } }), {
      params: Promise.resolve({}),
    } as never);
    const listed = (await api.json()) as { sources: Record<string, unknown>[] };
    expect(listed.sources.map((s) => s.name)).toContain('bad-auth');
    expect(listed.sources.every((s) => !('connectionSecret' in s))).toBe(true);
    const everything = await storedAndLogged(child.output(), { api: listed });
    expect(everything).toContain('refused the credentials');
    expect(everything).not.toMatch(/hunter2/);
  });

  it('picks up a new source within 10 s, and pause holds the messages on the broker until resume (audited)', { timeout: 60_000 }, async () => {
    const t = await topology();
    running.connectors = await startConnectorSupervisor({ discoveryMs: 1_000 });
    await publish('', t.dlq, [{ content: Buffer.from('{"a":1}'), options: { messageId: 'm-1' } }]);
    const created = Date.now();
    const source = await connectorSource(t, 'late');
    await waitFor('imported', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 1, 10_000);
    expect(Date.now() - created).toBeLessThan(10_000);

    await setImportPaused(SYSTEM, source.name, true, 'broker maintenance');
    await waitFor('the loop stopped', async () => !running.connectors!.running().includes(source.id), 10_000);
    await publish('', t.dlq, [{ content: Buffer.from('{"a":2}'), options: { messageId: 'm-2' } }]);
    await pause(2_500);
    expect(await depth(t.dlq)).toBe(1);
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(1);

    await setImportPaused(SYSTEM, source.name, false);
    await waitFor('imported after resume', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 2, 10_000);
    expect(await importSwitches(source.id)).toEqual([
      ['source.import.pause', 'broker maintenance'],
      ['source.import.resume', null],
    ]);
  });

  it('records messages with no id, non-UTF-8 header bytes and a 5 MB body exactly, and publishes them back exactly', { timeout: 90_000 }, async () => {
    const t = await topology();
    const source = await importingSource(running, t, 'exact');
    running.consumer = await workConsumer(t, () => 'reject');

    const binary = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3]);
    const big = randomBytes(5 * 1024 * 1024);
    const same = Buffer.from('{"same":"body"}');
    await publish(t.exchange, t.routingKey, [{ content: big, options: { messageId: 'big', headers: { 'x-raw': binary, 'x-text': 'héllo' } } }]);
    // Identical bodies without an id, dead-lettered at different times, stay two dead letters.
    await publish(t.exchange, t.routingKey, [{ content: same }]);
    await pause(1_100);
    await publish(t.exchange, t.routingKey, [{ content: same }]);
    await waitFor('3 dead letters', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 3, 30_000);

    const rows = await db().deadLetter.findMany({ where: { sourceId: source.id }, orderBy: { id: 'asc' } });
    const bigRow = rows.find((r) => r.messageId === 'big')!;
    expect(bigRow.payloadSha256).toBe(sha(big));
    expect(bigRow.payloadSize).toBe(big.length);
    expect((bigRow.headers as Record<string, unknown>)['x-raw']).toEqual({ $bytes: binary.toString('base64') });
    expect((bigRow.headers as Record<string, unknown>)['x-text']).toBe('héllo');
    const twins = rows.filter((r) => r.messageId !== 'big');
    expect(twins.map((r) => r.payloadSha256)).toEqual([sha(same), sha(same)]);
    expect(new Set(twins.map((r) => r.messageId)).size).toBe(2);
    expect(twins[0]!.messageId).toMatch(new RegExp(`^sha256:${sha(same)}:\\d+:1$`));

    // Back on the original queue: the same bytes, the same header bytes, the original id and Triage's count.
    await running.consumer.close();
    const received: ConsumeMessage[] = [];
    const ch = await (await admin()).createChannel();
    await ch.consume(t.work, (m) => {
      if (!m) return;
      received.push(m);
      ch.ack(m);
    });
    const { connector, source: cs } = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id: source.id } }));
    const destination = connector.redriveDestination(cs);
    const results = await destination.deliver(rows.map(outgoingOf), new AbortController().signal);
    expect(results).toEqual([
      { ok: true, acknowledged: false },
      { ok: true, acknowledged: false },
      { ok: true, acknowledged: false },
    ]);
    await waitFor('3 back on the work queue', async () => received.length === 3, 20_000);
    const back = received.find((m) => m.properties.messageId === 'big')!;
    expect(sha(back.content)).toBe(sha(big));
    expect(Buffer.compare(back.properties.headers!['x-raw'] as Buffer, binary)).toBe(0);
    expect(back.properties.headers!['x-triage-redrive-count']).toBe(1);
    expect(back.properties.headers!['x-death']).toBeUndefined();
    expect(new Set(received.map((m) => m.properties.messageId))).toEqual(new Set(rows.map((r) => r.messageId)));

    // A copy whose headers were forged to name another queue still goes where the original came from.
    const forgedQueue = `${t.work}.forged`;
    await ch.assertQueue(forgedQueue, { autoDelete: false });
    const twin = outgoingOf(twins[0]!);
    const forged = Object.fromEntries(Object.entries(twin.headers).filter(([k]) => k !== 'x-death'));
    Object.assign(forged, { 'x-original-exchange': '', 'x-original-routingKey': forgedQueue });
    const landed = received.length;
    expect(await destination.deliver([{ ...twin, headers: forged }], new AbortController().signal)).toEqual([{ ok: true, acknowledged: false }]);
    await waitFor('the copy back on the work queue', async () => received.length === landed + 1, 20_000);
    expect((await ch.checkQueue(forgedQueue)).messageCount).toBe(0);
    await ch.deleteQueue(forgedQueue);

    // Unroutable (nothing bound to the original exchange any more) is the message's failure.
    await ch.unbindQueue(t.work, t.exchange, t.routingKey);
    const [unroutable] = await destination.deliver([oneByte(bigRow.id, 'big', bigRow.headers as Record<string, unknown>)], new AbortController().signal);
    expect(unroutable).toEqual({
      ok: false,
      error: `Unroutable: no queue is bound to exchange "${t.exchange}" with routing key "${t.routingKey}"`,
      failure: 'message',
    });

    // The original exchange gone is a refusal of the redrive itself, not an outage: the task pauses
    // and says what to create or set; the next batch opens a fresh channel.
    await ch.deleteExchange(t.exchange);
    const [noExchange] = await destination.deliver([outgoingOf(bigRow)], new AbortController().signal);
    expect(noExchange).toMatchObject({ ok: false, failure: 'refused', error: expect.stringContaining(`exchange "${t.exchange}" does not exist`) });
    expect((noExchange as { error: string }).error).toMatch(/set a target queue on the source/);
    await ch.assertExchange(t.exchange, 'direct', { durable: false, autoDelete: false });
    await ch.bindQueue(t.work, t.exchange, t.routingKey);
    const again = received.length;
    expect(await destination.deliver([outgoingOf(bigRow)], new AbortController().signal)).toEqual([{ ok: true, acknowledged: false }]);
    await waitFor('the message back once the exchange is there again', async () => received.length === again + 1, 20_000);
    await destination.close?.();
    await ch.close();

    // Credentials the broker refuses: a refusal too (retrying cannot help until someone fixes them).
    const badRow = await connectorSource(t, 'bad-auth-redrive', { url: 'amqp://guest:wrong@127.0.0.1:5672/%2F' });
    const bad = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id: badRow.id } }));
    const [denied] = await bad.connector.redriveDestination(bad.source).deliver([outgoingOf(bigRow)], new AbortController().signal);
    expect(denied).toMatchObject({ ok: false, failure: 'refused', error: expect.stringMatching(/refused the credentials/) });

    // A broker that is down is the infrastructure's failure.
    const downRow = await connectorSource(t, 'down-redrive', { url: 'amqp://guest:guest@127.0.0.1:1/%2F' });
    const down = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id: downRow.id } }));
    const [refused] = await down.connector
      .redriveDestination(down.source)
      .deliver([oneByte(1n, 'x', bigRow.headers as Record<string, unknown>)], new AbortController().signal);
    expect(refused).toMatchObject({ ok: false, failure: 'infrastructure', error: expect.stringMatching(/not reachable/) });
  });
});
