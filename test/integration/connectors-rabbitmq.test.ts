// The RabbitMQ connector end to end on the real broker: messages a real
// consumer dead-letters (reject without requeue, Spring's republish with exception headers, a quorum
// queue's delivery limit) all appear in Triage byte-exact with their x-death facts and error text;
// a redrive puts them back on the original queue, the consumer acknowledges the fixed ones and
// rejects the others, which come back as the next generation and count as dead again.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { db, pg } from '@/lib/db';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import {
  connectorTestLifecycle,
  deleteTopologies,
  depth,
  publish,
  topology,
  waitFor,
  waitForDeadLetters,
  workConsumer,
  type WorkConsumer,
  startRedriveNoBreaker,
  waitForGeneration,
  expectCleanImport,
  importingSource,
} from './connectors-rabbitmq-support';
import { shiftedClock, waitForTask } from './redrive-support';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function orders(n: number, run: string) {
  return Array.from({ length: n }, (_, i) => {
    const content = Buffer.from(JSON.stringify({ order: i, run, giftWrap: i % 3 === 0, note: 'x'.repeat(i % 50) }));
    return { id: `order-${i}`, content, sha: sha(content) };
  });
}

const index = (messageId: unknown) => Number(String(messageId).split('-')[1]);

describe('RabbitMQ connector', () => {
  const running = connectorTestLifecycle<WorkConsumer>(deleteTopologies);

  it('imports 2,000 dead letters byte-exact with x-death and Spring exception headers, and redrives them back', { timeout: 240_000 }, async () => {
    const t = await topology();
    const source = await importingSource(running, t, 'orders-rmq');

    // Handler v1: even orders rejected (x-death "rejected"), odd ones republished Spring-style.
    running.consumer = await workConsumer(t, (m) => (index(m.properties.messageId) % 2 === 0 ? 'reject' : 'spring'));
    const sent = orders(2_000, t.run);
    await publish(
      t.exchange,
      t.routingKey,
      sent.map((m) => ({
        content: m.content,
        options: { messageId: m.id, contentType: 'application/json', correlationId: `corr-${m.id}`, timestamp: 1_700_000_000, headers: { 'x-tenant': 'acme' } },
      })),
    );
    await waitForDeadLetters(source.id, 2_000, 120_000);
    await waitFor('the DLQ drained (acknowledged after commit)', async () => (await depth(t.dlq)) === 0);

    const rows = await pg()<
      {
        message_id: string;
        payload_sha256: string;
        reason: string;
        error_type: string | null;
        error_message: string | null;
        error_stack: string | null;
        content_type: string;
        correlation_id: string;
        enqueued_at: Date;
        headers: Record<string, unknown>;
        failure_history: Record<string, unknown>[];
        generation: number;
        receive_count: number;
      }[]
    >`SELECT message_id, payload_sha256, reason::text AS reason, error_type, error_message, error_stack, content_type, correlation_id, enqueued_at, headers, failure_history, generation, receive_count
      FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    const byId = new Map(rows.map((r) => [r.message_id, r]));
    const wrong = sent.filter((m) => byId.get(m.id)?.payload_sha256 !== m.sha).map((m) => m.id);
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(byId.size).toBe(2_000);

    const rejected = byId.get('order-4')!;
    expect(rejected).toMatchObject({
      reason: 'Rejected',
      content_type: 'application/json',
      correlation_id: 'corr-order-4',
      generation: 0,
      receive_count: 1,
      error_type: null,
    });
    expect(rejected.enqueued_at.getTime()).toBe(1_700_000_000_000);
    expect(rejected.failure_history).toEqual([
      expect.objectContaining({ reason: 'rejected', count: 1, queue: t.work, exchange: t.exchange, routingKeys: [t.routingKey] }),
    ]);
    expect(rejected.headers['x-tenant']).toBe('acme');
    expect(rejected.headers['x-death']).toBeDefined();

    const spring = byId.get('order-7')!;
    expect(spring).toMatchObject({
      reason: 'Rejected',
      error_type: 'com.acme.orders.UnknownFieldException',
      error_message: 'Order order-7 rejected: unknown field "giftWrap"',
    });
    expect(spring.error_stack).toContain('OrderHandler.handle(OrderHandler.java:42)');
    // Fingerprinted like any dead letter: one cluster for the Spring cause, whatever the order number.
    const clusters = await pg()<{ n: number }[]>`
      SELECT count(DISTINCT cluster_id)::int AS n FROM dead_letters WHERE source_id = ${source.id}::uuid AND error_type IS NOT NULL`;
    expect(clusters[0]!.n).toBe(1);
    await expectCleanImport(source.id, 2_000);

    // Handler v2 fixes orders divisible by 4; the others are rejected again.
    await running.consumer.close();
    const acked = new Set<string>();
    running.consumer = await workConsumer(t, (m) => {
      const i = index(m.properties.messageId);
      if (i % 4 === 0) {
        acked.add(String(m.properties.messageId));
        return 'ack';
      }
      return 'reject';
    });
    // What is not seen dead by the outcome window's end counts as "no death seen" (no ack is
    // observable on a broker). The window is a minute of the runner's clock, which the test moves on
    // once the deaths are in: a loaded machine's consumer may reach a message seconds after its send,
    // and the window ending under it would make a death no death seen. Three in four die on purpose.
    const clock = shiftedClock();
    const task = await startRedriveNoBreaker(SYSTEM, { selection: { source: source.name }, ratePerSecond: 1_000, outcomeWindowSeconds: 60 });
    running.redrives = await startRedriveSupervisor({ reconcileMs: 500, clock: clock.now });
    await waitForTask(task.id, 'all sent', (x) => x.sent === 2_000).catch(async (e: unknown) => {
      const t2 = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
      const states = await db().redriveItem.groupBy({ by: ['state'], where: { taskId: task.id }, _count: true });
      const errors = await db().redriveItem.findMany({ where: { taskId: task.id, error: { not: null } }, select: { error: true }, take: 3 });
      throw new Error(`${String(e)}: ${JSON.stringify({ status: t2.status, sent: t2.sent, paused: t2.pausedReason, states, errors })}`);
    });
    await waitFor('500 acknowledged by the fixed consumer', async () => acked.size === 500, 60_000, 250);
    await waitForGeneration(source.id, 1, 1_500);

    const again = await pg()<
      { message_id: string; payload_sha256: string; redrive_count: number; headers: Record<string, unknown>; failure_history: Record<string, unknown>[] }[]
    >`
      SELECT message_id, payload_sha256, redrive_count, headers, failure_history FROM dead_letters WHERE source_id = ${source.id}::uuid AND generation = 1`;
    const shaOf = new Map(sent.map((m) => [m.id, m.sha]));
    expect(again.filter((r) => r.payload_sha256 !== shaOf.get(r.message_id)).length).toBe(0);
    expect(again.every((r) => r.redrive_count === 1 && index(r.message_id) % 4 !== 0)).toBe(true);
    // Back on the original queue with the broker's old x-death stripped: the new death is the only one.
    const sample = again.find((r) => r.message_id === 'order-6')!;
    expect(sample.failure_history).toEqual([expect.objectContaining({ reason: 'rejected', count: 1, queue: t.work })]);
    expect(sample.headers['x-triage-redrive-count']).toBe(1);
    expect(sample.headers['x-tenant']).toBe('acme');

    await waitForTask(task.id, 'the task counts 1,500 dead again', (x) => x.deadAgain === 1_500).catch(async (e: unknown) => {
      // When each death happened, as the broker says, after its send: past the window is no death seen.
      const [late] = await pg()<{ n: number; past: number; maxS: number; importS: number }[]>`
        SELECT count(*)::int AS n, count(*) FILTER (WHERE n.dead_at > i.sent_at + interval '60 seconds')::int AS past,
          max(extract(epoch FROM n.dead_at - i.sent_at))::float8 AS "maxS", max(extract(epoch FROM n.created_at - n.dead_at))::float8 AS "importS"
        FROM redrive_items i JOIN dead_letters d ON d.id = i.dead_letter_id
        JOIN dead_letters n ON n.source_id = d.source_id AND n.message_id = d.message_id AND n.generation = 1
        WHERE i.task_id = ${task.id}::uuid AND i.state = 'no_death_seen'`;
      throw new Error(`${String(e)}; no death seen but dead again: ${JSON.stringify(late)}`);
    });
    // The fixed ones were never seen dead again within the window: no death seen, never "acknowledged".
    clock.advance(61_000);
    const final = await waitForTask(task.id, 'the task completed', (x) => x.status === 'completed', 90_000);
    expect(final).toMatchObject({ sent: 2_000, deadAgain: 1_500, noDeathSeen: 500, acknowledged: 0, failed: 0 });
    expect(await db().deadLetter.count({ where: { sourceId: source.id, generation: 0, status: 'redriven' } })).toBe(2_000);
  });

  it("imports a quorum queue's delivery-limit dead letters as MaxReceives", { timeout: 180_000 }, async () => {
    const t = await topology({ quorum: { deliveryLimit: 2 } });
    const source = await importingSource(running, t, 'orders-quorum');
    running.consumer = await workConsumer(t, () => 'requeue');
    const sent = orders(2_000, t.run);
    await publish(
      t.exchange,
      t.routingKey,
      sent.map((m) => ({ content: m.content, options: { messageId: m.id } })),
    );
    await waitForDeadLetters(source.id, 2_000, 150_000);

    const rows = await pg()<
      { message_id: string; payload_sha256: string; reason: string; receive_count: number; failure_history: Record<string, unknown>[] }[]
    >`
      SELECT message_id, payload_sha256, reason::text AS reason, receive_count, failure_history FROM dead_letters WHERE source_id = ${source.id}::uuid`;
    const shaOf = new Map(sent.map((m) => [m.id, m.sha]));
    expect(rows.filter((r) => r.payload_sha256 !== shaOf.get(r.message_id)).length).toBe(0);
    expect(new Set(rows.map((r) => r.reason))).toEqual(new Set(['MaxReceives']));
    // RabbitMQ drops x-delivery-count when it dead-letters, so the broker's own word is what remains.
    expect(rows[0]!.failure_history).toEqual([
      expect.objectContaining({ reason: 'delivery_limit', count: 1, queue: t.work, exchange: t.exchange, routingKeys: [t.routingKey] }),
    ]);
  });
});
