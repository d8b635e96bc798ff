// The SQS connector against a real SQS-compatible server (fauxqs, its own process over HTTP): a real
// SDK consumer fails messages past maxReceiveCount, the emulator's redrive policy moves them to the
// DLQ, Triage imports them (write, then delete), and a redrive sends them back to the source queue.
import { CreateQueueCommand, SendMessageBatchCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { cliCreateSource } from '../support/cli';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { connectorSourceOf } from '@/lib/connectors';
import { sourceTrapCheck } from '@/lib/connectors/trap-check';
import { testConnection } from '@/lib/connectors/test-connection';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { startRedrive } from '@/lib/redrive';
import { destinationFor } from '@/lib/redrive/destinations';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import {
  outgoingOf,
  waitFor,
  waitForDeadLetters,
  emulatorTestLifecycle,
  startRedriveNoBreaker,
  waitForGeneration,
  expectCleanImport,
} from './connectors-rabbitmq-support';
import { waitForTask } from './redrive-support';
import { consumer, queueCounts, queues, sqsSource, startEmulator, type Consumer, type Emulator } from './connectors-sqs-support';

const orderNo = (body: string | undefined) => (JSON.parse(body ?? '{}') as { order: number }).order;

async function send(
  emu: Emulator,
  url: string,
  entries: { body: string; attributes?: Record<string, MessageAttributeValue>; group?: string; dedup?: string }[],
) {
  for (let i = 0; i < entries.length; i += 10) {
    const res = await emu.client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: entries.slice(i, i + 10).map((e, j) => ({
          Id: String(j),
          MessageBody: e.body,
          MessageAttributes: e.attributes,
          ...(e.group ? { MessageGroupId: e.group, MessageDeduplicationId: e.dedup } : {}),
        })),
      }),
    );
    expect(res.Failed ?? []).toEqual([]);
  }
}

describe('SQS connector', () => {
  const running = emulatorTestLifecycle<Emulator, Consumer>(startEmulator);

  it('imports what a consumer failed past maxReceiveCount with receive count and send time, empties the DLQ, and redrives it back', {
    timeout: 180_000,
  }, async () => {
    const q = await queues(running.server.client, { maxReceiveCount: 2 });
    const source = await sqsSource(q, 'orders-sqs', running.server.endpoint);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });

    // Handler v1 fails every order: after 2 receives SQS moves each to the DLQ.
    const sentAt = new Map<string, string>();
    running.consumer = consumer(running.server.client, q.source, (m) => {
      sentAt.set(m.MessageId!, m.Attributes!.SentTimestamp!);
      return 'fail';
    });
    await send(
      running.server,
      q.source,
      Array.from({ length: 40 }, (_, i) => ({
        body: JSON.stringify({ order: i, giftWrap: i % 2 === 1 }),
        attributes: {
          tenant: { DataType: 'String', StringValue: 'acme' },
          priority: { DataType: 'Number', StringValue: String(i % 5) },
          signature: { DataType: 'Binary', BinaryValue: Buffer.from([0, 255, i]) },
        },
      })),
    );
    await waitForDeadLetters(source.id, 40, 90_000);
    await waitFor('the DLQ empty (deleted after commit)', async () => {
      const c = await queueCounts(running.server.client, q.dlq);
      return c.visible === 0 && c.inFlight === 0;
    });

    const rows = await pg()<
      {
        message_id: string;
        payload: Buffer;
        reason: string;
        receive_count: number;
        enqueued_at: Date;
        headers: Record<string, unknown>;
        generation: number;
        consumer_name: string;
      }[]
    >`
      SELECT message_id, payload, reason::text AS reason, receive_count, enqueued_at, headers, generation, consumer_name FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    expect(rows).toHaveLength(40);
    for (const r of rows) {
      // The id SQS gave the message when it was sent, and the time it was sent (the retention clock).
      expect(sentAt.has(r.message_id)).toBe(true);
      expect(r.enqueued_at.getTime()).toBe(Number(sentAt.get(r.message_id)));
      // Received twice by the consumer, then past maxReceiveCount: SQS's count says so.
      expect(r.receive_count).toBeGreaterThan(2);
      expect(r).toMatchObject({ reason: 'MaxReceives', generation: 0, consumer_name: `${q.run}-orders` });
    }
    const third = rows.find((r) => orderNo(r.payload.toString()) === 3)!;
    expect(JSON.parse(third.payload.toString())).toEqual({ order: 3, giftWrap: true });
    expect(third.headers).toMatchObject({
      tenant: 'acme',
      priority: { $type: 'Number', value: '3' },
      signature: { $type: 'Binary', $bytes: Buffer.from([0, 255, 3]).toString('base64') },
    });
    expect(third.headers.$sqs).toMatchObject({ ApproximateReceiveCount: String(third.receive_count), SentTimestamp: sentAt.get(third.message_id) });
    await expectCleanImport(source.id, 40);

    // Handler v2 fixes the orders without gift wrap; the others fail again.
    await running.consumer.close();
    const deleted = new Map<string, Record<string, MessageAttributeValue>>();
    running.consumer = consumer(running.server.client, q.source, (m) => {
      if (orderNo(m.Body) % 2 === 0) {
        deleted.set(m.MessageAttributes?.['triage-original-id']?.StringValue ?? '(none)', m.MessageAttributes ?? {});
        return 'delete';
      }
      return 'fail';
    });
    // Half come back dead on purpose.
    const task = await startRedriveNoBreaker(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitForTask(task.id, 'all sent', (x) => x.sent === 40);
    await waitFor('20 deleted by the fixed consumer', async () => deleted.size === 20, 60_000, 250);
    // The consumer saw the original id, and the message's own attributes with their types.
    const evens = rows.filter((r) => orderNo(r.payload.toString()) % 2 === 0).map((r) => r.message_id);
    expect([...deleted.keys()].sort()).toEqual(evens.sort());
    const attrs = deleted.get(evens[0]!)!;
    expect(attrs['triage-redrive-count']).toMatchObject({ DataType: 'Number', StringValue: '1' });
    expect(attrs.tenant).toMatchObject({ DataType: 'String', StringValue: 'acme' });
    expect(Buffer.from(attrs.signature!.BinaryValue!).length).toBe(3);

    await waitForGeneration(source.id, 1, 20, 90_000);
    const again = await pg()<{ message_id: string; redrive_count: number; payload: Buffer }[]>`
      SELECT message_id, redrive_count, payload FROM dead_letters WHERE source_id = ${source.id}::uuid AND generation = 1`;
    const odds = new Set(rows.filter((r) => orderNo(r.payload.toString()) % 2 === 1).map((r) => r.message_id));
    expect(again.every((r) => odds.has(r.message_id) && r.redrive_count === 1)).toBe(true);
    await waitForTask(task.id, 'the task counts 20 dead again', (x) => x.deadAgain === 20);
    expect(await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ sent: 40, deadAgain: 20, failed: 0 });
  });

  it('keeps a FIFO message group through import and redrive, with a new deduplication id', { timeout: 120_000 }, async () => {
    const q = await queues(running.server.client, { fifo: true, maxReceiveCount: 1 });
    const source = await sqsSource(q, 'orders-fifo', running.server.endpoint);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    running.consumer = consumer(running.server.client, q.source, () => 'fail');
    await send(
      running.server,
      q.source,
      Array.from({ length: 6 }, (_, i) => ({ body: JSON.stringify({ order: i }), group: i < 3 ? 'customer-a' : 'customer-b', dedup: `order-${i}` })),
    );
    await waitForDeadLetters(source.id, 6);
    const rows = await db().deadLetter.findMany({ where: { sourceId: source.id }, select: { orderingKey: true, idempotencyKey: true, payload: true } });
    for (const r of rows) {
      const i = orderNo(Buffer.from(r.payload!).toString());
      expect(r).toMatchObject({ orderingKey: i < 3 ? 'customer-a' : 'customer-b', idempotencyKey: `order-${i}` });
    }

    await running.consumer.close();
    const back: { order: number; group?: string; dedup?: string }[] = [];
    running.consumer = consumer(running.server.client, q.source, (m) => {
      back.push({ order: orderNo(m.Body), group: m.Attributes?.MessageGroupId, dedup: m.Attributes?.MessageDeduplicationId });
      return 'delete';
    });
    const task = await startRedrive(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitFor('all 6 received back', async () => back.length === 6, 60_000, 250);
    expect((await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).sent).toBe(6);
    for (const b of back) {
      expect(b.group).toBe(b.order < 3 ? 'customer-a' : 'customer-b');
      // A new one: the original would be dropped as a duplicate inside SQS's 5-minute window.
      expect(b.dedup).toMatch(/^triage-\d+-1$/);
    }
    // Each group in its order.
    for (const g of ['customer-a', 'customer-b']) {
      const orders = back.filter((b) => b.group === g).map((b) => b.order);
      expect(orders).toEqual([...orders].sort((a, b) => a - b));
    }
  });

  it("refuses per message: 10 attributes leave no room for Triage's, and an entry SQS fails is a failed item with its reason", {
    timeout: 120_000,
  }, async () => {
    // The source queue takes at most 1 KiB; one dead letter is larger (the queue's limit was lowered since).
    const q = await queues(running.server.client, { maxReceiveCount: 1, sourceMaxSize: 1024 });
    const source = await sqsSource(q, 'orders-refused', running.server.endpoint);
    const ten = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`attr${i}`, { DataType: 'String', StringValue: `v${i}` }]));
    await send(running.server, q.dlq, [
      { body: JSON.stringify({ order: 0 }), attributes: ten },
      { body: JSON.stringify({ order: 1, note: 'x'.repeat(2000) }) },
      { body: JSON.stringify({ order: 2 }) },
    ]);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitForDeadLetters(source.id, 3);
    await running.connectors.stop();
    running.connectors = undefined;

    const row = await db().source.findUniqueOrThrow({ where: { id: source.id } });
    const destination = destinationFor(row);
    const letters = await db().deadLetter.findMany({ where: { sourceId: source.id } });
    letters.sort((a, b) => orderNo(Buffer.from(a.payload!).toString()) - orderNo(Buffer.from(b.payload!).toString()));
    const results = await destination.deliver(letters.map(outgoingOf), new AbortController().signal);
    await destination.close?.();
    expect(results[0]).toMatchObject({ ok: false, failure: 'message', error: expect.stringContaining('has 10 message attributes; SQS allows 10') });
    expect(results[1]).toMatchObject({
      ok: false,
      failure: 'message',
      error: expect.stringMatching(/SQS refused the message \(InvalidParameterValue\).*shorter than 1024 bytes/),
    });
    expect(results[2]).toEqual({ ok: true, acknowledged: false });
    // Only the one that fitted reached the queue: never one without Triage's attributes.
    const got: { order: number; original?: string }[] = [];
    running.consumer = consumer(running.server.client, q.source, (m) => {
      got.push({ order: orderNo(m.Body), original: m.MessageAttributes?.['triage-original-id']?.StringValue });
      return 'delete';
    });
    await waitFor('the sent one received', async () => got.length === 1);
    // Nothing visible and nothing in flight: the consumer has had all the queue will ever hold.
    await waitFor('the source queue empty', async () => {
      const c = await queueCounts(running.server.client, q.source);
      return c.visible === 0 && c.inFlight === 0;
    });
    expect(got).toEqual([{ order: 2, original: letters[2]!.messageId }]);
  });

  it('a redrive whose source queue SQS cannot name pauses with what to set, instead of retrying in silence', { timeout: 120_000 }, async () => {
    const q = await queues(running.server.client);
    // A DLQ no source queue points at, and no source queue URL on the source: Triage cannot tell where
    // its messages go back to (ListDeadLetterSourceQueues finds none, or the server has no such action).
    const orphan = (await running.server.client.send(new CreateQueueCommand({ QueueName: `${q.run}-orphan` }))).QueueUrl!;
    const source = await sqsSource({ ...q, dlq: orphan }, 'orphan', running.server.endpoint, { sourceQueueUrl: undefined });
    await recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86400 }, [
      { messageId: 'orphan-1', payload: Buffer.from('{"order":1}'), reason: 'MaxReceives' },
    ]);
    const task = await startRedrive(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitForTask(task.id, 'the task paused', (x) => x.status === 'paused');
    const paused = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(paused.pausedReason).toMatch(/set the source queue URL on the source/);
    expect(paused).toMatchObject({ sent: 0, failed: 0 });
    // Nothing was given up: the item waits, to go once the source says where.
    expect(await db().redriveItem.count({ where: { taskId: task.id, state: 'pending' } })).toBe(1);
  });

  it('warns when the DLQ keeps messages no longer than its source queue (the retention trap)', async () => {
    const trap = await queues(running.server.client, { sourceRetention: 345_600, dlqRetention: 345_600 });
    const fine = await queues(running.server.client, { sourceRetention: 345_600, dlqRetention: 1_209_600 });
    const trapped = await sqsSource(trap, 'orders-trap', running.server.endpoint);
    const kept = await sqsSource(fine, 'orders-kept', running.server.endpoint);

    const probe = async (id: string) => {
      const { connector, source } = connectorSourceOf(await db().source.findUniqueOrThrow({ where: { id } }));
      return connector.probe(source);
    };
    const bad = await probe(trapped.id);
    expect(bad).toMatchObject({ ok: true, facts: expect.objectContaining({ exists: true, depth: 0, retentionSeconds: 345_600 }) });
    expect(bad.warnings).toEqual([
      expect.stringContaining(`"${trap.run}-dlq" keeps messages 4 d, not longer than its source queue "${trap.run}-orders" (4 d)`),
    ]);
    expect(bad.traps).toEqual([
      expect.objectContaining({
        code: 'dlq_retention_not_longer',
        severity: 'warning',
        fix: expect.stringContaining("Set the DLQ's MessageRetentionPeriod longer"),
      }),
    ]);

    const good = await probe(kept.id);
    expect(good.ok).toBe(true);
    expect(good.warnings).toBeUndefined();
    expect(good.traps).toEqual([]);

    // What the source page shows, and what "test connection" answers.
    expect(await sourceTrapCheck(SYSTEM, 'orders-trap')).toEqual({ traps: bad.traps });
    expect(await sourceTrapCheck(SYSTEM, 'orders-kept')).toEqual({ traps: [] });
    expect((await testConnection(SYSTEM, 'orders-trap')).warnings).toEqual(bad.warnings);
    expect((await testConnection(SYSTEM, 'orders-trap')).traps).toEqual(bad.traps);
    expect(await testConnection(SYSTEM, 'orders-kept')).not.toHaveProperty('warnings');
  });

  it('releases a batch whose commit failed at once, not after the visibility timeout', { timeout: 120_000 }, async () => {
    const q = await queues(running.server.client);
    // Hidden for 10 minutes if it were not released.
    const source = await sqsSource(q, 'orders-release', running.server.endpoint, { visibilityTimeoutSeconds: 600, pollers: 1 });
    // Postgres itself refuses the write.
    await pg().unsafe(
      `CREATE OR REPLACE FUNCTION test_refuse_dead_letters() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
    );
    await pg().unsafe(`CREATE TRIGGER test_refuse BEFORE INSERT ON dead_letters FOR EACH ROW EXECUTE FUNCTION test_refuse_dead_letters()`);
    try {
      await send(running.server, q.dlq, [{ body: JSON.stringify({ order: 1 }) }, { body: JSON.stringify({ order: 2 }) }]);
      running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500, backoffBaseMs: 60_000, backoffCapMs: 60_000 });
      const health = await waitFor('the failed write on the source health', async () => {
        const h = await db().connectorHealth.findUnique({ where: { sourceId: source.id } });
        return h?.lastError ? h : null;
      });
      expect(health.lastError).toContain('released back to the queue');
      // Backing off for a minute: nothing else receives them, yet they are visible now.
      expect(await queueCounts(running.server.client, q.dlq)).toEqual({ visible: 2, inFlight: 0 });
    } finally {
      await running.connectors?.stop();
      running.connectors = undefined;
      await pg().unsafe(`DROP TRIGGER IF EXISTS test_refuse ON dead_letters`);
    }
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(0);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitFor(
      'both imported once the database takes them',
      async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 2,
      30_000,
      250,
    );
  });

  it('CLI: source create --kind sqs is picked up by the running connectors within 10 s; the keys are stored encrypted only', { timeout: 60_000 }, async () => {
    const q = await queues(running.server.client);
    await createTeam(SYSTEM, { name: 'commerce' }).catch(() => undefined);
    running.connectors = await startConnectorSupervisor({ discoveryMs: 500 });
    const secretKey = 'cli-secret-key-9f8e7d6c';
    const cli = cliCreateSource(
      'sqs',
      [
        '--name',
        'orders-cli',
        '--queue-url',
        q.dlq,
        '--endpoint',
        running.server.endpoint,
        '--region',
        'us-east-1',
        '--access-key-id',
        'AKIATEST',
        '--secret-access-key',
        'env:TEST_SQS_SECRET_KEY',
        '--json',
      ],
      { TEST_SQS_SECRET_KEY: secretKey },
    );
    expect(cli.stderr).not.toContain(secretKey);
    expect(cli.status).toBe(0);
    const created = JSON.parse(cli.stdout) as Record<string, unknown>;
    expect(created).toMatchObject({
      name: 'orders-cli',
      kind: 'sqs',
      connection: { queueUrl: q.dlq, endpoint: running.server.endpoint, region: 'us-east-1' },
      secret: { accessKeyId: 'set', secretAccessKey: 'set' },
    });
    expect(cli.stdout).not.toContain(secretKey);
    const stored = await pg()<{ row: string }[]>`SELECT row_to_json(s)::text AS row FROM sources s WHERE name = 'orders-cli'`;
    expect(stored[0]!.row).not.toContain(secretKey);

    const started = Date.now();
    await send(running.server, q.dlq, [{ body: JSON.stringify({ order: 1 }) }]);
    await waitFor(
      'imported by the running worker',
      async () => (await db().deadLetter.count({ where: { source: { name: 'orders-cli' } } })) === 1,
      10_000,
      100,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
