// The SQS connector against a real SQS-compatible server (fauxqs, its own process over HTTP): a real
// SDK consumer fails messages past maxReceiveCount, the emulator's redrive policy moves them to the
// DLQ, Triage imports them (write, then delete), and a redrive sends them back to the source queue.
import { SendMessageBatchCommand, type MessageAttributeValue } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { connectorSourceOf } from '@/lib/connectors';
import { startConnectorSupervisor, type ConnectorSupervisor } from '@/lib/connectors/supervisor';
import { closeDb, db, sql } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor, type RedriveSupervisor } from '@/lib/redrive/supervisor';
import { resetDatabase } from '../support/db';
import { waitFor } from './connectors-rabbitmq-support';
import { consumer, queueCounts, queues, sqsSource, startEmulator, type Consumer, type Emulator } from './connectors-sqs-support';

const orderNo = (body: string | undefined) => (JSON.parse(body ?? '{}') as { order: number }).order;

async function send(emu: Emulator, url: string, entries: { body: string; attributes?: Record<string, MessageAttributeValue>; group?: string; dedup?: string }[]) {
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
  let emu: Emulator;
  let connectors: ConnectorSupervisor | undefined;
  let redrives: RedriveSupervisor | undefined;
  let app: Consumer | undefined;

  beforeAll(async () => {
    emu = await startEmulator();
  });
  beforeEach(resetDatabase);
  afterEach(async () => {
    await app?.close();
    await connectors?.stop();
    await redrives?.stop();
    app = connectors = redrives = undefined;
  });
  afterAll(async () => {
    await emu?.stop();
    await closeQueues();
    await closeDb();
  });

  it('imports what a consumer failed past maxReceiveCount with receive count and send time, empties the DLQ, and redrives it back', { timeout: 180_000 }, async () => {
    const q = await queues(emu.client, { maxReceiveCount: 2 });
    const source = await sqsSource(q, 'orders-sqs', emu.endpoint);
    connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });

    // Handler v1 fails every order: after 2 receives SQS moves each to the DLQ.
    const sentAt = new Map<string, string>();
    app = consumer(emu.client, q.source, (m) => {
      sentAt.set(m.MessageId!, m.Attributes!.SentTimestamp!);
      return 'fail';
    });
    await send(
      emu,
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
    await waitFor('40 dead letters', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 40, 90_000, 250);
    await waitFor('the DLQ empty (deleted after commit)', async () => {
      const c = await queueCounts(emu.client, q.dlq);
      return c.visible === 0 && c.inFlight === 0;
    });

    const rows = await sql()<{ message_id: string; payload: Buffer; reason: string; receive_count: number; enqueued_at: Date; headers: Record<string, unknown>; generation: number; consumer_name: string }[]>`
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
    expect(third.headers).toMatchObject({ tenant: 'acme', priority: { $type: 'Number', value: '3' }, signature: { $type: 'Binary', $bytes: Buffer.from([0, 255, 3]).toString('base64') } });
    expect(third.headers.$sqs).toMatchObject({ ApproximateReceiveCount: String(third.receive_count), SentTimestamp: sentAt.get(third.message_id) });
    const health = await db().connectorHealth.findUniqueOrThrow({ where: { sourceId: source.id } });
    expect(health).toMatchObject({ importedTotal: 40n, consecutiveFailures: 0, lastError: null });

    // Handler v2 fixes the orders without gift wrap; the others fail again.
    await app.close();
    const deleted = new Map<string, Record<string, MessageAttributeValue>>();
    app = consumer(emu.client, q.source, (m) => {
      if (orderNo(m.Body) % 2 === 0) {
        deleted.set(m.MessageAttributes?.['triage-original-id']?.StringValue ?? '(none)', m.MessageAttributes ?? {});
        return 'delete';
      }
      return 'fail';
    });
    const task = await startRedrive(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    // Half come back dead on purpose: this test is about the connector, not the circuit breaker.
    await db().redriveTask.update({ where: { id: task.id }, data: { breakerThreshold: 1 } });
    redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitFor('all sent', async () => (await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).sent === 40, 60_000, 250);
    await waitFor('20 deleted by the fixed consumer', async () => deleted.size === 20, 60_000, 250);
    // The consumer saw the original id, and the message's own attributes with their types.
    const evens = rows.filter((r) => orderNo(r.payload.toString()) % 2 === 0).map((r) => r.message_id);
    expect([...deleted.keys()].sort()).toEqual(evens.sort());
    const attrs = deleted.get(evens[0]!)!;
    expect(attrs['triage-redrive-count']).toMatchObject({ DataType: 'Number', StringValue: '1' });
    expect(attrs.tenant).toMatchObject({ DataType: 'String', StringValue: 'acme' });
    expect(Buffer.from(attrs.signature!.BinaryValue!).length).toBe(3);

    await waitFor('20 next-generation dead letters', async () => (await db().deadLetter.count({ where: { sourceId: source.id, generation: 1 } })) === 20, 90_000, 250);
    const again = await sql()<{ message_id: string; redrive_count: number; payload: Buffer }[]>`
      SELECT message_id, redrive_count, payload FROM dead_letters WHERE source_id = ${source.id}::uuid AND generation = 1`;
    const odds = new Set(rows.filter((r) => orderNo(r.payload.toString()) % 2 === 1).map((r) => r.message_id));
    expect(again.every((r) => odds.has(r.message_id) && r.redrive_count === 1)).toBe(true);
    await waitFor('the task counts 20 dead again', async () => (await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).deadAgain === 20, 60_000, 500);
    expect(await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ sent: 40, deadAgain: 20, failed: 0 });
  });
});
