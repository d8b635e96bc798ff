// The NATS JetStream connector on bad input and odd cases: a server that is down, a
// stream or consumer that does not exist — each a clear error on "test connection" and on the
// source's health, with backoff, never a crash loop, never a credential in the rows or the logs; a
// source created with the CLI is picked up by the running worker within 10 s; a message gone from
// the stream before Triage read its advisory is recorded as a tombstone that a redrive refuses; a
// work-queue source deletes what it recorded; a batch whose commit failed is nak'ed and comes back
// at once; the redrive destination says per item whose failure it is.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cliCreateSource } from '../support/cli';
import { connectorSourceOf } from '@/lib/connectors';
import { readerName } from '@/lib/connectors/nats/capture';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import type { OutgoingRedrive } from '@/lib/redrive/destinations';
import { connectorsAfterSixSeconds, connectorTestLifecycle, expectBackedOff, outgoingOf, storedAndLogged, waitFor } from './connectors-rabbitmq-support';
import {
  admin,
  connectorSource,
  deleteWorkStreams,
  NATS_URL,
  publish,
  streamExists,
  streamMessages,
  workConsumer,
  workStream,
  type WorkConsumer,
} from './connectors-nats-support';
import { killWorkerChildren } from '../support/worker-child';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const text = (s: string) => new TextEncoder().encode(s);

async function destinationOf(sourceId: string) {
  const { connector, source } = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id: sourceId } }));
  return { destination: connector.redriveDestination(source), probe: () => connector.probe(source) };
}

async function outgoing(sourceId: string, messageId: string): Promise<OutgoingRedrive> {
  return outgoingOf(await db().deadLetter.findFirstOrThrow({ where: { sourceId, messageId } }));
}

describe('NATS JetStream connector: bad input and odd cases', () => {
  const running = connectorTestLifecycle<WorkConsumer>(async () => {
    await killWorkerChildren();
    await pg()`DROP TRIGGER IF EXISTS nats_test_refuse ON dead_letters`;
    await pg()`DROP FUNCTION IF EXISTS nats_test_refuse()`;
    await deleteWorkStreams();
  });

  it('says clearly when the server is down or the stream or consumer is missing, backs off, and picks up a CLI-created source within 10 s', {
    timeout: 90_000,
  }, async () => {
    const w = await workStream();
    const down = await connectorSource(w, 'down', { secret: { url: 'nats://triage:hunter2-pass@127.0.0.1:1' } });
    const noStream = await connectorSource(w, 'no-stream', { connection: { stream: `${w.stream}_NOPE` } });
    const noConsumer = await connectorSource(w, 'no-consumer', { connection: { consumer: 'nope' }, secret: { url: NATS_URL, token: 'hunter2-token' } });

    expect(await (await destinationOf(down.id)).probe()).toMatchObject({ ok: false, error: expect.stringMatching(/^NATS at 127\.0\.0\.1:1 is not reachable/) });
    expect(await (await destinationOf(noStream.id)).probe()).toMatchObject({
      ok: false,
      error: `Stream "${w.stream}_NOPE" does not exist on NATS at 127.0.0.1:4222`,
    });
    expect(await (await destinationOf(noConsumer.id)).probe()).toMatchObject({
      ok: false,
      error: `Consumer "nope" does not exist on stream "${w.stream}" at NATS 127.0.0.1:4222`,
    });

    const { child, health } = await connectorsAfterSixSeconds();
    expect(health.get(down.id)?.lastError).toMatch(/^NATS at 127\.0\.0\.1:1 is not reachable/);
    expect(health.get(noStream.id)?.lastError).toBe(`Stream "${w.stream}_NOPE" does not exist on NATS at 127.0.0.1:4222`);
    expect(health.get(noConsumer.id)?.lastError).toBe(`Consumer "nope" does not exist on stream "${w.stream}" at NATS 127.0.0.1:4222`);
    expectBackedOff(health, [down.id, noStream.id, noConsumer.id]);
    expect(child.process.exitCode).toBeNull();
    // Nothing was created for a pair that does not exist.
    expect(await streamExists(w.capture)).toBe(false);

    // The CLI contract: the running worker takes the new source up (creating its capture stream) within 10 s.
    const created = Date.now();
    const cli = cliCreateSource('nats', ['--name', 'orders-cli', '--url', NATS_URL, '--stream', w.stream, '--consumer', w.consumer, '--json']);
    expect(cli.stderr).toBe('');
    expect(JSON.parse(cli.stdout)).toMatchObject({
      name: 'orders-cli',
      kind: 'nats',
      connection: { stream: w.stream, consumer: w.consumer, deleteAfterImport: false },
      secret: { url: NATS_URL },
    });
    await waitFor('the capture stream', () => streamExists(w.capture), 10_000, 200);
    expect(Date.now() - created).toBeLessThan(10_000);
    const { probe } = await destinationOf(JSON.parse(cli.stdout).id as string);
    expect(await probe()).toMatchObject({ ok: true, facts: { exists: true, maxDeliver: 3, numPending: 0, captureStream: w.capture } });
    running.consumer = await workConsumer(w, () => 'nak');
    await publish(w, [{ n: 1, data: text('{"a":1}'), msgId: 'cli-1' }]);
    await waitFor('imported', async () => (await db().deadLetter.count({ where: { messageId: 'cli-1' } })) === 1, 20_000);

    // No secret in the logs, the rows, the health or the audit trail.
    const everything = await storedAndLogged(child.output());
    expect(everything).toContain('is not reachable');
    expect(everything).not.toMatch(/hunter2/);
  });

  it('records a message gone from the stream as a tombstone a redrive refuses, and deletes what it recorded from a work-queue stream', {
    timeout: 90_000,
  }, async () => {
    const w = await workStream({ workQueue: true, maxDeliver: 2 });
    const source = await connectorSource(w, 'work-queue', { connection: { deleteAfterImport: true } });
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitFor('the capture stream', () => streamExists(w.capture), 20_000);
    await running.connectors.stop();
    running.connectors = undefined;

    running.consumer = await workConsumer(w, () => 'nak');
    const big = new Uint8Array(1024 * 512).map((_, i) => (i * 7) % 256);
    await publish(w, [
      { n: 1, data: text('{"keep":1}'), msgId: 'keep-1', headers: { 'x-tenant': 'acme' } },
      { n: 2, data: big, msgId: 'keep-2' },
    ]);
    await publish(w, [{ n: 3, data: text('{"gone":1}'), msgId: 'gone-1' }]);
    await waitFor('3 advisories captured', async () => (await streamMessages(w.capture)) === 3, 30_000);
    // Deleted (or aged out by the stream's limits) before the connector read its advisory.
    expect(await (await admin()).jsm.streams.deleteMessage(w.stream, 3)).toBe(true);

    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitFor('3 dead letters', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 3, 20_000);
    const rows = new Map((await db().deadLetter.findMany({ where: { sourceId: source.id } })).map((r) => [r.messageId, r]));
    expect(rows.get('keep-2')).toMatchObject({ payloadSha256: sha(big), payloadSize: big.length, receiveCount: 2, reason: 'MaxReceives' });
    const tombstone = rows.get(`${w.stream}:3`)!;
    expect(tombstone).toMatchObject({ payloadSize: 0, receiveCount: 2, reason: 'MaxReceives' });
    expect((tombstone.headers as Record<string, Record<string, unknown>>).$nats).toMatchObject({
      stream: w.stream,
      consumer: w.consumer,
      seq: 3,
      gone: expect.stringMatching(/not in the stream/),
    });
    // Recorded, so deleted from the work-queue stream (where a dead message would stay forever).
    await waitFor('the work-queue stream emptied', async () => (await streamMessages(w.stream)) === 0, 10_000);

    await running.consumer.close();
    running.consumer = undefined;
    const { destination } = await destinationOf(source.id);
    const results = await destination.deliver([await outgoing(source.id, `${w.stream}:3`), await outgoing(source.id, 'keep-1')], new AbortController().signal);
    expect(results).toEqual([
      {
        ok: false,
        failure: 'message',
        error: `The message was gone from stream "${w.stream}" before Triage read it (sequence 3): there is nothing to redrive`,
      },
      { ok: true, acknowledged: false },
    ]);
    expect(await streamMessages(w.stream)).toBe(1);
    const redriven = await (await admin()).jsm.streams.getMessage(w.stream, { last_by_subj: `${w.subject}.1` });
    expect(redriven?.string()).toBe('{"keep":1}');
    expect(redriven?.header.get('x-tenant')).toBe('acme');
    expect(redriven?.header.get('Triage-Redrive-Count')).toBe('1');

    // No stream takes the subject any more: a refusal of the redrive (the task pauses and says what to
    // fix), not an outage. The server down: the infrastructure's.
    const lost = await outgoing(source.id, 'keep-1');
    // The original's subject, as stored (where a redrive goes is read from the original, never a copy).
    lost.origin = { ...lost.origin, $nats: { ...(lost.origin.$nats as object), subject: `nowhere.${w.run}` } };
    expect(await destination.deliver([lost], new AbortController().signal)).toEqual([
      {
        ok: false,
        failure: 'refused',
        error: `No stream takes subject "nowhere.${w.run}" on NATS at 127.0.0.1:4222: create or restore stream "${w.stream}" with that subject`,
      },
    ]);
    await destination.close?.();
    const downSource = await connectorSource(w, 'down-redrive', { secret: { url: 'nats://127.0.0.1:1' } });
    const [refused] = await (await destinationOf(downSource.id)).destination.deliver([await outgoing(source.id, 'keep-1')], new AbortController().signal);
    expect(refused).toMatchObject({ ok: false, failure: 'infrastructure', error: expect.stringMatching(/not reachable/) });
  });

  it("naks a batch whose commit failed, so it comes back at once and not after the reader's ack wait", { timeout: 90_000 }, async () => {
    const w = await workStream({ maxDeliver: 2 });
    const source = await connectorSource(w, 'commit-fails');
    // Postgres refuses these rows for as long as the trigger exists (a full disk, a lost primary…).
    await pg().unsafe(`CREATE FUNCTION nats_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.message_id LIKE 'refused-%' THEN RAISE EXCEPTION 'disk full (test)'; END IF; RETURN NEW; END $$`);
    await pg().unsafe(`CREATE TRIGGER nats_test_refuse BEFORE INSERT ON dead_letters FOR EACH ROW EXECUTE FUNCTION nats_test_refuse()`);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500, backoffBaseMs: 200, backoffCapMs: 1_000 });
    await waitFor('the capture stream', () => streamExists(w.capture), 20_000);
    running.consumer = await workConsumer(w, () => 'nak');
    await publish(w, [{ n: 1, data: text('{"r":1}'), msgId: 'refused-1' }]);

    await waitFor(
      'the write refused',
      async () => /Recording 1 dead letters failed/.test((await db().connectorHealth.findUnique({ where: { sourceId: source.id } }))?.lastError ?? ''),
      20_000,
      100,
    );
    await waitFor(
      'handed out again',
      async () => (await (await admin()).jsm.consumers.info(w.capture, readerName(source.id))).num_redelivered >= 1,
      10_000,
      100,
    );
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(0);

    await pg()`DROP TRIGGER nats_test_refuse ON dead_letters`;
    const fixed = Date.now();
    await waitFor('recorded once the database takes it', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 1, 20_000, 100);
    // The reader's ack wait is 30 s: back this soon, it was nak'ed.
    expect(Date.now() - fixed).toBeLessThan(10_000);
    await waitFor(
      'healthy again',
      async () => (await db().connectorHealth.findUniqueOrThrow({ where: { sourceId: source.id } })).consecutiveFailures === 0,
      10_000,
    );
  });
});
