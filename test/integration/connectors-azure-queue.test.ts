// The Azure Storage queue connector against Azurite (Microsoft's emulator, its own process over HTTP):
// poison messages as the Azure Functions runtime leaves them (base64 text in `<queue>-poison`), Triage
// imports them (write, then delete by pop receipt), a redrive sends the exact bytes back to the
// function's queue, where a function host that fails poison messages moves them to `-poison` again,
// and they come back as the next generation.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cliCreateSource } from '../support/cli';
import { SYSTEM } from '@/lib/auth';
import { connectorSourceOf } from '@/lib/connectors';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { testConnection } from '@/lib/connectors/test-connection';
import { sourceTrapCheck } from '@/lib/connectors/trap-check';
import { db, pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import { destinationFor } from '@/lib/redrive/destinations';
import { outgoingOf, waitFor, waitForDeadLetters, emulatorTestLifecycle, startRedriveNoBreaker, expectCleanImport } from './connectors-rabbitmq-support';
import { waitForTask } from './redrive-support';
import { azureSource, connectionString, depth, functionHost, queues, sendAll, startAzurite, type Azurite, type FunctionHost } from './connectors-azure-support';

const N = 2_000;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const fromB64 = (t: string) => Buffer.from(t, 'base64');

/** Order i's bytes: JSON mostly, every 50th raw binary (not UTF-8), every 4th with the app's own error field. */
function order(i: number, run: string): Buffer {
  if (i % 50 === 7) return Buffer.from([0xff, 0xfe, 0, i % 256, 0x80, 0x81]);
  return Buffer.from(JSON.stringify({ order: i, run, giftWrap: i % 2 === 1, ...(i % 4 === 3 ? { error: `stock check failed for order ${i}` } : {}) }));
}
const orderOf = (payload: Uint8Array): number | null => {
  try {
    return (JSON.parse(Buffer.from(payload).toString('utf8')) as { order: number }).order;
  } catch {
    return null;
  }
};

describe('Azure Storage queue connector', () => {
  const running = emulatorTestLifecycle<Azurite, FunctionHost>(startAzurite);

  it('imports 2,000 base64 poison messages byte-exact with their facts, redrives them, and the ones still failing come back as the next generation', {
    timeout: 300_000,
  }, async () => {
    const q = await queues(running.server);
    const bytes = Array.from({ length: N }, (_, i) => order(i, q.run));
    const ids = await sendAll(q.poison, bytes.map(b64));
    const byId = new Map(ids.map((id, i) => [id, i]));
    const source = await azureSource(q, 'orders-poison', running.server, { encoding: 'base64', errorText: { messagePath: '$.error' } });
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });

    await waitForDeadLetters(source.id, N, 120_000);
    await waitFor('the poison queue empty (deleted after commit)', async () => (await depth(q.poison)) === 0, 30_000, 250);

    const rows = await pg()<
      {
        message_id: string;
        payload: Buffer;
        payload_sha256: string;
        reason: string;
        receive_count: number;
        enqueued_at: Date;
        headers: Record<string, Record<string, unknown>>;
        generation: number;
        error_type: string | null;
        error_message: string | null;
        consumer_name: string;
      }[]
    >`
      SELECT message_id, payload, payload_sha256, reason::text AS reason, receive_count, enqueued_at, headers, generation, error_type, error_message, consumer_name
      FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    expect(rows).toHaveLength(N);
    expect(new Set(rows.map((r) => r.message_id)).size).toBe(N);
    for (const r of rows) {
      const i = byId.get(r.message_id)!;
      expect(i).toBeDefined();
      // The bytes the application wrote, not its base64.
      expect(r.payload_sha256).toBe(sha(bytes[i]!));
      const facts = r.headers.$azure!;
      expect(facts).toMatchObject({ queue: q.poison.name, messageId: r.message_id, dequeueCount: r.receive_count, encoding: 'base64' });
      expect(new Date(String(facts.insertedOn)).getTime()).toBe(r.enqueued_at.getTime());
      // Azure's default time to live: 7 days after insertion.
      expect(new Date(String(facts.expiresOn)).getTime() - r.enqueued_at.getTime()).toBe(7 * 86_400_000);
      expect(r).toMatchObject({ reason: 'MaxReceives', generation: 0, consumer_name: `${q.run}-orders` });
      expect(r.receive_count).toBeGreaterThanOrEqual(1);
    }
    const row = (i: number) => rows.find((r) => byId.get(r.message_id) === i)!;
    // The application's own error where the source's JSON path finds it; else the queue and the payload's shape.
    expect(row(3)).toMatchObject({ error_type: null, error_message: 'stock check failed for order 3' });
    expect(row(2)).toMatchObject({
      error_type: 'PoisonMessage',
      error_message: `Poison message on queue ${q.run}-orders-poison: JSON object {giftWrap, order, run} (the message carries no exception)`,
    });
    expect(row(7)).toMatchObject({ error_type: 'PoisonMessage', error_message: expect.stringContaining(': not JSON (') });
    expect(row(7).payload.equals(bytes[7]!)).toBe(true);
    await expectCleanImport(source.id, N);

    // Version 2 of the function handles the even orders; the odd ones and the binary ones still fail,
    // and after 2 dequeues the host moves them to the poison queue as new messages.
    running.consumer = functionHost(q, (m) => {
      const n = orderOf(fromB64(m.messageText));
      return n !== null && n % 2 === 0;
    });
    // Half come back dead on purpose.
    const task = await startRedriveNoBreaker(SYSTEM, { selection: { source: source.name }, ratePerSecond: 2_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    const fixed = bytes.filter((b) => orderOf(b) !== null && orderOf(b)! % 2 === 0).length;
    const failing = N - fixed;
    await waitForTask(task.id, 'all sent', (x) => x.sent === N, 120_000);
    await waitFor(`${fixed} handled by the fixed function`, async () => running.consumer!.succeeded.length === fixed, 120_000, 250);
    // The function read the exact bytes, base64 again as it expects.
    const got = new Set(running.consumer.succeeded.map((m) => sha(fromB64(m.messageText))));
    expect(rows.filter((r) => orderOf(r.payload) !== null && orderOf(r.payload)! % 2 === 0).every((r) => got.has(r.payload_sha256))).toBe(true);

    await waitFor(
      `${failing} next-generation dead letters`,
      async () => (await db().deadLetter.count({ where: { sourceId: source.id, generation: 1 } })) === failing,
      120_000,
      250,
    );
    const again = await pg()<{ message_id: string; redrive_count: number; payload_sha256: string }[]>`
      SELECT message_id, redrive_count, payload_sha256 FROM dead_letters WHERE source_id = ${source.id}::uuid AND generation = 1`;
    const firstSha = new Map(rows.map((r) => [r.message_id, r.payload_sha256]));
    // The same dead letter (its first message id), the same bytes, one redrive later.
    expect(again.filter((r) => firstSha.get(r.message_id) !== r.payload_sha256 || r.redrive_count !== 1)).toEqual([]);
    expect(new Set(again.map((r) => r.message_id)).size).toBe(failing);
    await waitForTask(task.id, 'the task counts them dead again', (x) => x.deadAgain === failing);
    expect(await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ sent: N, deadAgain: failing, failed: 0 });
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(N + failing);
  });

  it("keeps a text queue's messages as their text, records a message that is not base64 as it is, and takes one at the 64 KiB limit whole", {
    timeout: 120_000,
  }, async () => {
    const q = await queues(running.server);
    const atLimit = 'x'.repeat(64 * 1024);
    const texts = ['{"order":1}', 'plain words, not JSON', atLimit];
    const textIds = await sendAll(q.poison, texts, 1);
    const textSource = await azureSource(q, 'orders-text', running.server);
    running.connectors = await startConnectorSupervisor({ only: [textSource.id], discoveryMs: 500 });
    await waitForDeadLetters(textSource.id, 3);
    for (const [i, id] of textIds.entries()) {
      const d = await db().deadLetter.findFirstOrThrow({ where: { sourceId: textSource.id, messageId: id } });
      expect(Buffer.from(d.payload!).equals(Buffer.from(texts[i]!, 'utf8'))).toBe(true);
    }
    await running.connectors.stop();

    // A base64 source and a message someone wrote as plain text: kept exactly, with the reason.
    const b = await queues(running.server);
    const [bad] = await sendAll(b.poison, ['not base64 at all!'], 1);
    const b64Source = await azureSource(b, 'orders-b64', running.server, { encoding: 'base64' });
    running.connectors = await startConnectorSupervisor({ only: [b64Source.id], discoveryMs: 500 });
    const d = await waitFor(
      'the not-base64 message',
      async () => db().deadLetter.findFirst({ where: { sourceId: b64Source.id, messageId: bad! } }),
      60_000,
      250,
    );
    expect(Buffer.from(d.payload!).toString('utf8')).toBe('not base64 at all!');
    expect(d).toMatchObject({ errorType: 'TriageNotBase64', errorMessage: expect.stringContaining('is not base64') });
    expect((d.headers as Record<string, Record<string, unknown>>).$azure).toMatchObject({ encoding: 'text' });
    await running.connectors.stop();
    running.connectors = undefined;

    // Redrive, per item: the 64 KiB text fits a text queue; as base64 it would not, and is refused alone.
    const letters = await db().deadLetter.findMany({ where: { sourceId: textSource.id }, orderBy: { id: 'asc' } });
    const text = await destinationFor(await db().source.findUniqueOrThrow({ where: { id: textSource.id } })).deliver(
      letters.map(outgoingOf),
      new AbortController().signal,
    );
    expect(text).toEqual([
      { ok: true, acknowledged: false },
      { ok: true, acknowledged: false },
      { ok: true, acknowledged: false },
    ]);
    await db().source.update({ where: { id: textSource.id }, data: { connection: { queue: q.poison.name, encoding: 'base64', visibilityTimeoutSeconds: 5 } } });
    const asB64 = await destinationFor(await db().source.findUniqueOrThrow({ where: { id: textSource.id } })).deliver(
      letters.map(outgoingOf),
      new AbortController().signal,
    );
    expect(asB64.filter((r) => r.ok)).toHaveLength(2);
    expect(asB64.find((r) => !r.ok)).toEqual({
      ok: false,
      failure: 'message',
      error: 'The message is 87,384 bytes as base64; an Azure queue message may be at most 65,536',
    });
    await waitFor('5 on the target queue', async () => (await depth(q.target)) === 5, 10_000, 100);
  });

  it('says what is wrong: a wrong key, a missing queue, a poison queue without a target; never a crash loop', { timeout: 120_000 }, async () => {
    const q = await queues(running.server);
    const wrongKey = Buffer.alloc(64, 7).toString('base64');
    const refused = await azureSource(q, 'orders-wrong-key', running.server, {}, { connectionString: connectionString(running.server.endpoint, wrongKey) });
    const missing = await azureSource({ ...q, poison: running.server.service.getQueueClient(`${q.run}-nowhere-poison`) }, 'orders-missing', running.server);
    running.connectors = await startConnectorSupervisor({ only: [refused.id, missing.id], discoveryMs: 500 });
    const failing = async (id: string) =>
      waitFor('a failure on the source health', async () => {
        const h = await db().connectorHealth.findUnique({ where: { sourceId: id } });
        return h?.lastError ? h : null;
      });
    const r = await failing(refused.id);
    expect(r.lastError).toMatch(/refused the credentials \(AuthorizationFailure|AuthenticationFailed\)|refused the credentials/);
    expect(r.lastError).not.toContain(wrongKey);
    expect((await failing(missing.id)).lastError).toBe(`Queue "${q.run}-nowhere-poison" does not exist in the storage account`);
    // Backing off, not spinning: a few attempts in a few seconds.
    await new Promise((res) => setTimeout(res, 3_000));
    expect((await db().connectorHealth.findUniqueOrThrow({ where: { sourceId: missing.id } })).consecutiveFailures).toBeLessThanOrEqual(4);

    const t = await testConnection(SYSTEM, 'orders-wrong-key');
    expect(t).toMatchObject({ ok: false, error: expect.stringContaining('refused the credentials') });
    expect(JSON.stringify(t)).not.toContain(wrongKey);

    // A queue that is not `<name>-poison` and no target queue: a redrive pauses with what to set.
    const plain = running.server.service.getQueueClient(`${q.run}-parked`);
    await plain.create();
    const noTarget = await azureSource({ ...q, poison: plain }, 'orders-no-target', running.server);
    const probe = await testConnection(SYSTEM, 'orders-no-target');
    expect(probe.warnings).toEqual([expect.stringContaining('does not end in "-poison": set the target queue on the source')]);
    await recordDeadLetters({ id: noTarget.id, retentionSeconds: 14 * 86400 }, [
      { messageId: 'parked-1', payload: Buffer.from('{"order":1}'), reason: 'MaxReceives' },
    ]);
    const task = await startRedrive(SYSTEM, { selection: { source: noTarget.name }, ratePerSecond: 1_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitForTask(task.id, 'the task paused', (x) => x.status === 'paused');
    expect((await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).pausedReason).toMatch(/set the target queue on the source/);
  });

  it('test connection reports the depth, the target queue and the traps: time to live, no exception in a poison message, maxDequeueCount', {
    timeout: 60_000,
  }, async () => {
    const q = await queues(running.server);
    await sendAll(q.poison, ['{"order":1}', '{"order":2}', '{"order":3}'], 1);
    const source = await azureSource(q, 'orders-probe', running.server);
    const { connector, source: s } = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id: source.id } }));
    const report = await connector.probe(s);
    expect(report).toMatchObject({
      ok: true,
      summary: expect.stringMatching(/^Queue ".*-orders-poison" exists: 3 messages/),
      facts: expect.objectContaining({ account: 'devstoreaccount1', depth: 3, targetQueue: `${q.run}-orders`, targetDepth: 0 }),
    });
    expect(report.traps!.map((t) => `${t.code}:${t.severity}`)).toEqual(['message_ttl:info', 'no_error_text:info', 'settings_not_readable:info']);
    expect(report.traps![0]!.message).toContain('expire 7 d after they entered it');
    expect(await sourceTrapCheck(SYSTEM, 'orders-probe')).toEqual({ traps: report.traps });

    // The source queue beside the poison queue: the function's queue.
    await sendAll(q.target, ['{"order":9}'], 1);
    const state = await connector.readSourceQueue(s, new AbortController().signal);
    expect(state).toMatchObject({ queue: `${q.run}-orders`, depth: 1, inFlight: null, consumers: null });
    expect(state.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('the CLI creates a source from a connection string in the environment, and refuses one on the command line', { timeout: 120_000 }, async () => {
    const q = await queues(running.server);
    await sendAll(q.poison, [b64(Buffer.from('{"order":1}'))], 1);
    await azureSource(q, 'orders-seed', running.server);
    const cs = connectionString(running.server.endpoint);
    const cli = (args: string[], env: Record<string, string> = {}) => cliCreateSource('azure-queue', args, env);
    const made = cli(
      ['--name', 'orders-cli', '--connection-string', 'env:AZ_CS', '--queue', q.poison.name, '--target-queue', q.target.name, '--encoding', 'base64', '--json'],
      { AZ_CS: cs },
    );
    expect(made.stderr).toBe('');
    const out = JSON.parse(made.stdout) as { id: string };
    expect(out).toMatchObject({
      name: 'orders-cli',
      kind: 'azure_queue',
      connection: { queue: q.poison.name, targetQueue: q.target.name, encoding: 'base64' },
      secret: { connectionString: 'set' },
      importPaused: false,
    });
    expect(made.stdout).not.toContain('AccountKey');
    expect(await testConnection(SYSTEM, 'orders-cli')).toMatchObject({ ok: true, facts: expect.objectContaining({ depth: 1, targetQueue: q.target.name }) });

    const inline = cli(['--name', 'orders-inline', '--connection-string', cs, '--queue', q.poison.name]);
    expect(inline.status).not.toBe(0);
    expect(inline.stderr).toContain('--connection-string would put a secret on the command line');
    expect(inline.stderr).not.toContain('AccountKey=');
    const noQueue = cli(['--name', 'orders-bad', '--connection-string', 'env:AZ_CS', '--queue', 'Orders_Poison'], { AZ_CS: cs });
    expect(noQueue.stderr).toContain('connection.queue: an Azure queue name');
    expect(await db().source.count({ where: { name: { in: ['orders-inline', 'orders-bad'] } } })).toBe(0);
  });
});
