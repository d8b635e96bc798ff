// The NATS JetStream connector end to end on the real nats-server: messages a real
// consumer with max_deliver naks to the limit, or terminates, land in Triage with their delivery
// count, subject, headers and exact bytes, including those whose advisories were emitted while the
// connector was down (its capture stream keeps them); a redrive after a fix publishes them back to
// their subjects, the consumer acks the fixed ones and fails the others, which come back as the next
// generation of the same message id and count as dead again.
import { createHash } from 'node:crypto';
import type { JsMsg } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import { connectorTestLifecycle, waitFor, expectCleanImport } from './connectors-rabbitmq-support';
import { waitForTask } from './redrive-support';
import {
  connectorSource,
  deleteWorkStreams,
  order,
  publish,
  streamExists,
  streamMessages,
  workConsumer,
  workStream,
  type WorkConsumer,
} from './connectors-nats-support';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** The order number of a message: the last token of its subject. */
const numberOf = (subject: string) => Number(subject.split('.').pop());
const n = (m: JsMsg) => numberOf(m.subject);

describe('NATS JetStream connector', () => {
  const running = connectorTestLifecycle<WorkConsumer>(deleteWorkStreams);

  it('imports max_deliver and terminated dead letters, also those that died while it was down, and redrives them back', { timeout: 240_000 }, async () => {
    const w = await workStream({ maxDeliver: 3 });
    const source = await connectorSource(w, 'orders-nats');
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitFor('the capture stream, created on first start', () => streamExists(w.capture), 20_000);

    // Handler v1: every tenth order is poison (terminated at once), the others are nak'ed to max_deliver.
    running.consumer = await workConsumer(w, (m) => (n(m) % 10 === 0 ? 'term' : 'nak'));
    const sent = Array.from({ length: 400 }, (_, i) => ({
      n: i,
      data: order(i, w.run),
      headers: { 'x-tenant': 'acme', 'x-trace': ['a', 'b'], 'Content-Type': 'application/json' },
      // Every seventh has no Nats-Msg-Id: its id is stream:sequence.
      ...(i % 7 === 0 ? {} : { msgId: `order-${i}` }),
    }));
    const shaOf = new Map(sent.map((m) => [m.n, sha(m.data)]));
    const count = (generation = 0) => db().deadLetter.count({ where: { sourceId: source.id, generation } });

    await publish(w, sent.slice(0, 200));
    await waitFor('200 dead letters', async () => (await count()) === 200, 60_000, 250);

    // The connector goes down; 200 more die meanwhile: their advisories wait in the capture stream.
    await running.connectors.stop();
    running.connectors = undefined;
    await publish(w, sent.slice(200));
    await waitFor('400 advisories captured', async () => (await streamMessages(w.capture)) === 400, 60_000, 250);
    expect(await count()).toBe(200);
    running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
    await waitFor('400 dead letters', async () => (await count()) === 400, 60_000, 250);

    const rows = await pg()<
      {
        message_id: string;
        payload_sha256: string;
        reason: string;
        receive_count: number;
        generation: number;
        content_type: string | null;
        consumer_name: string;
        enqueued_at: Date;
        headers: Record<string, unknown>;
        failure_history: Record<string, unknown>[];
      }[]
    >`SELECT message_id, payload_sha256, reason::text AS reason, receive_count, generation, content_type, consumer_name, enqueued_at, headers, failure_history
      FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    const bySubject = new Map(rows.map((r) => [numberOf(String((r.headers.$nats as Record<string, unknown>).subject)), r]));
    expect(bySubject.size).toBe(400);
    expect(rows.filter((r) => r.payload_sha256 !== shaOf.get(numberOf(String((r.headers.$nats as Record<string, unknown>).subject)))).length).toBe(0);

    const maxed = bySubject.get(3)!;
    expect(maxed).toMatchObject({
      message_id: 'order-3',
      reason: 'MaxReceives',
      receive_count: 3,
      generation: 0,
      content_type: 'application/json',
      consumer_name: w.consumer,
    });
    expect(maxed.headers).toMatchObject({
      'x-tenant': 'acme',
      'x-trace': ['a', 'b'],
      'Nats-Msg-Id': 'order-3',
      $nats: { stream: w.stream, consumer: w.consumer, subject: `${w.subject}.3`, advisory: 'max_deliveries', seq: expect.any(Number) },
    });
    expect(maxed.failure_history).toEqual([
      expect.objectContaining({ reason: 'max_deliveries', count: 3, queue: `${w.stream} > ${w.consumer}`, routingKeys: [`${w.subject}.3`] }),
    ]);
    expect(Math.abs(maxed.enqueued_at.getTime() - Date.now())).toBeLessThan(120_000);
    expect(bySubject.get(10)).toMatchObject({ message_id: 'order-10', reason: 'Rejected', receive_count: 1 });
    expect((bySubject.get(10)!.headers.$nats as Record<string, unknown>).advisory).toBe('terminated');
    // No Nats-Msg-Id: stream and sequence name it.
    expect(bySubject.get(7)!.message_id).toBe(`${w.stream}:${String((bySubject.get(7)!.headers.$nats as Record<string, unknown>).seq)}`);
    // Died while the connector was down, recorded the same way.
    expect(bySubject.get(333)).toMatchObject({ message_id: 'order-333', reason: 'MaxReceives', receive_count: 3 });

    await expectCleanImport(source.id, 400);
    // The message stays in the application's stream by default.
    expect(await streamMessages(w.stream)).toBe(400);

    // Handler v2 fixes orders divisible by 4; the others fail again to max_deliver.
    await running.consumer.close();
    const acked = new Map<number, JsMsg>();
    running.consumer = await workConsumer(w, (m) => {
      if (n(m) % 4 !== 0) return 'nak';
      acked.set(n(m), m);
      return 'ack';
    });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    const task = await startRedrive(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000 });
    await waitForTask(task.id, 'all sent', (x) => x.sent === 400);
    await waitFor('100 acknowledged by the fixed consumer', async () => acked.size === 100, 60_000, 250);
    await waitFor('300 next-generation dead letters', async () => (await count(1)) === 300, 90_000, 250);

    // Back on the original subject with the original headers, a new Nats-Msg-Id and Triage's headers.
    const back = acked.get(8)!;
    expect(back.subject).toBe(`${w.subject}.8`);
    expect(sha(back.data)).toBe(shaOf.get(8));
    expect(back.headers?.values('x-trace')).toEqual(['a', 'b']);
    expect(back.headers?.get('Triage-Original-Id')).toBe('order-8');
    expect(back.headers?.get('Triage-Redrive-Count')).toBe('1');
    expect(back.headers?.get('Nats-Msg-Id')).not.toBe('order-8');

    const again = await pg()<{ message_id: string; payload_sha256: string; redrive_count: number; reason: string; headers: Record<string, unknown> }[]>`
      SELECT message_id, payload_sha256, redrive_count, reason::text AS reason, headers FROM dead_letters WHERE source_id = ${source.id}::uuid AND generation = 1`;
    const firstIdOf = new Map(rows.map((r) => [r.message_id, numberOf(String((r.headers.$nats as Record<string, unknown>).subject))]));
    // The same message ids as their first deaths (also the ones named by stream:sequence), the same bytes.
    expect(again.filter((r) => !firstIdOf.has(r.message_id)).map((r) => r.message_id)).toEqual([]);
    expect(again.filter((r) => r.payload_sha256 !== shaOf.get(firstIdOf.get(r.message_id)!)).length).toBe(0);
    expect(again.every((r) => r.redrive_count === 1 && r.reason === 'MaxReceives' && firstIdOf.get(r.message_id)! % 4 !== 0)).toBe(true);
    const sample = again.find((r) => r.message_id === 'order-6')!;
    expect(sample.headers).toMatchObject({
      'x-tenant': 'acme',
      'Triage-Redrive-Count': '1',
      'Triage-Original-Id': 'order-6',
      $nats: { subject: `${w.subject}.6` },
    });

    await waitForTask(task.id, 'the task counts 300 dead again', (x) => x.deadAgain === 300);
    expect(await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).toMatchObject({ sent: 400, deadAgain: 300, failed: 0 });
  });
});
