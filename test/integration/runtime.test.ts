// The broker runtime on real Redis and Postgres: what a user of a source queue would check.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { PermanentError } from '@/lib/broker';
import { db, pg } from '@/lib/db';
import { consume, redriveToSource, send, sendMany, TRIAGE_HEADERS, type Consumer, type ReceivedMessage } from '@/lib/runtime';
import { createTestTables, dropTestQueues, inFlight, spawnConsumer, testSource, waitFor } from './runtime-support';
import { killWorkerChildren } from '../support/worker-child';

const text = (s: string) => new TextEncoder().encode(s);
const notUtf8 = new Uint8Array([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28, 0x80]);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const httpError = (status: number) => Object.assign(new Error(`downstream answered ${status}`), { name: 'HttpError', status });

// Every test uses its own source name: queues and cached policies never carry over.
let n = 0;
async function ownSource(what: string, policy?: Parameters<typeof testSource>[1]) {
  const name = `${what}-${Date.now().toString(36)}-${n++}`;
  return { name, source: await testSource(name, policy) };
}

const consumers: Consumer[] = [];
async function consumeWith(source: string, handle: (m: ReceivedMessage) => Promise<void>, version = '1.4.2') {
  const c = await consume(source, handle, { consumerName: 'orders-service', consumerVersion: () => version, concurrency: 5 });
  consumers.push(c);
  return c;
}

const deadLetters = (sourceId: string) => db().deadLetter.findMany({ where: { sourceId }, orderBy: [{ messageId: 'asc' }, { generation: 'asc' }] });

/** Waits until the source holds exactly `n` dead letters: resolves with them, by message id and generation. */
const waitForDeadLetters = (what: string, sourceId: string, n = 1) =>
  waitFor(what, async () => {
    const rows = await deadLetters(sourceId);
    return rows.length === n && rows;
  });

/** Waits for the source's one dead letter, then for its job to leave Redis: resolves with the dead letter. */
async function deadLetteredAndGone(what: string, name: string, sourceId: string) {
  const [dl] = await waitForDeadLetters(what, sourceId);
  await waitFor('the job to leave Redis', async () => (await inFlight(name)) === 0);
  return dl!;
}

/** A dead letter's failure history as [reason, errorType, count] rows. */
const historyOf = (dl: { failureHistory: unknown }) =>
  (dl.failureHistory as { reason: string; errorType: string; count: number }[]).map((h) => [h.reason, h.errorType, h.count]);

/**
 * A message sent to the source that hangs the child consumer taking it, whose process is then
 * SIGKILLed mid-delivery: the message is left in flight until its visibility timeout.
 */
async function killedMidDelivery(name: string, body: string, messageId: string): Promise<void> {
  await createTestTables();
  const child = spawnConsumer();
  await child.ready;
  await send(name, text(body), { 'x-hang': '1' }, { messageId });
  await waitFor('the child to take the message', async () => (await pg()`SELECT 1 FROM runtime_started`).length === 1, 30_000);
  child.process.kill('SIGKILL');
  await child.exited;
}

/** Waits until the task's one redrive item is acknowledged. */
const itemAcknowledged = (what: string, taskId: string) =>
  waitFor(what, async () => {
    const [item] = await pg()<{ state: string }[]>`SELECT state::text FROM redrive_items WHERE task_id = ${taskId}`;
    return item?.state === 'acknowledged';
  });

describe('broker runtime', () => {
  freshDatabase({ close: dropTestQueues });
  afterEach(async () => {
    await killWorkerChildren();
    await Promise.all(consumers.splice(0).map((c) => c.close()));
  });

  it('acknowledges messages with their exact bytes (non-UTF-8, empty) and keeps nothing in Redis', async () => {
    const { name } = await ownSource('ack');
    const ids = await sendMany(name, [
      { body: text('{"order":1}'), headers: { 'content-type': 'application/json' } },
      { body: notUtf8 },
      { body: new Uint8Array() },
    ]);
    const seen = new Map<string, ReceivedMessage>();
    await consumeWith(name, async (m) => {
      seen.set(m.id, m);
    });
    await waitFor('3 acks and an empty queue', async () => seen.size === 3 && (await inFlight(name)) === 0);
    expect(sha(seen.get(ids[0]!)!.body)).toBe(sha(text('{"order":1}')));
    expect(Buffer.from(seen.get(ids[1]!)!.body)).toEqual(Buffer.from(notUtf8));
    expect(seen.get(ids[2]!)!.body.byteLength).toBe(0);
    expect(seen.get(ids[0]!)!.headers).toEqual({ 'content-type': 'application/json' });
    expect([...seen.values()].map((m) => m.receives)).toEqual([1, 1, 1]);
    expect(await db().deadLetter.count()).toBe(0);
  });

  it('retries a transient failure with backoff and then acknowledges', async () => {
    const { name } = await ownSource('transient', { maxReceives: 5, backoffBaseMs: 20 });
    await send(name, text('{"payment":7}'), {}, { messageId: 'pay-7' });
    const receives: number[] = [];
    await consumeWith(name, async (m) => {
      receives.push(m.receives);
      if (m.receives < 3) throw httpError(503);
    });
    await waitFor('the third receive to acknowledge', async () => receives.length === 3 && (await inFlight(name)) === 0);
    expect(receives).toEqual([1, 2, 3]);
    expect(await db().deadLetter.count()).toBe(0);
  });

  it('dead-letters a permanent error at once, with every field, before the message leaves Redis', async () => {
    const { name, source } = await ownSource('reject', { maxReceives: 5, backoffBaseMs: 10 });
    const before = new Date();
    await send(
      name,
      notUtf8,
      { 'content-type': 'application/octet-stream', 'x-tenant': 'acme' },
      {
        messageId: 'order-13',
        key: 'customer-42',
        idempotencyKey: 'idem-13',
        correlationId: 'trace-abc',
      },
    );
    let calls = 0;
    await consumeWith(name, async function handleOrder(m) {
      calls++;
      if (m.receives === 1) throw httpError(503);
      throw new PermanentError('unknown field "gift"');
    });
    const dl = await deadLetteredAndGone('one dead letter', name, source.id);
    expect(calls).toBe(2);
    expect(dl).toMatchObject({
      messageId: 'order-13',
      generation: 0,
      reason: 'Rejected',
      errorType: 'PermanentError',
      errorMessage: 'unknown field "gift"',
      receiveCount: 2,
      redriveCount: 0,
      consumerName: 'orders-service',
      consumerVersion: '1.4.2',
      correlationId: 'trace-abc',
      orderingKey: 'customer-42',
      idempotencyKey: 'idem-13',
      contentType: 'application/octet-stream',
      status: 'open',
      payloadSize: notUtf8.byteLength,
      payloadSha256: sha(notUtf8),
      headers: { 'content-type': 'application/octet-stream', 'x-tenant': 'acme' },
    });
    expect(Buffer.from(dl!.payload!)).toEqual(Buffer.from(notUtf8));
    expect(dl!.errorStack).toContain('handleOrder');
    expect(dl!.enqueuedAt!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);
    expect(dl!.firstFailedAt!.getTime()).toBeLessThan(dl!.lastFailedAt!.getTime());
    expect(dl!.clusterId).not.toBeNull();
    expect(historyOf(dl!)).toEqual([
      ['Retried', 'HttpError', 1],
      ['Rejected', 'PermanentError', 1],
    ]);
  });

  it('parks a message that keeps failing after maxReceives, with its history compressed', async () => {
    const { name, source } = await ownSource('maxreceives', { maxReceives: 4, backoffBaseMs: 5 });
    await send(name, text(''), {}, { messageId: 'loan-9' });
    let calls = 0;
    await consumeWith(name, async () => {
      calls++;
      throw Object.assign(new Error('member 9 not found'), { name: 'MemberNotFound' });
    });
    const dl = await deadLetteredAndGone('a MaxReceives dead letter', name, source.id);
    expect(calls).toBe(4);
    expect(dl).toMatchObject({ reason: 'MaxReceives', receiveCount: 4, errorType: 'MemberNotFound', errorMessage: 'member 9 not found', payloadSize: 0 });
    const history = dl!.failureHistory as { reason: string; count: number }[];
    expect(history.map((h) => [h.reason, h.count])).toEqual([
      ['Retried', 3],
      ['MaxReceives', 1],
    ]);
  });

  it('absorbs a duplicate send of a message still in flight', async () => {
    const { name } = await ownSource('dup');
    const first = await send(name, text('a'), {}, { messageId: 'same' });
    const second = await send(name, text('a'), {}, { messageId: 'same' });
    expect(second).toBe(first);
    expect(await inFlight(name)).toBe(1);
    const seen: string[] = [];
    await consumeWith(name, async (m) => {
      seen.push(m.id);
    });
    await waitFor('the queue to drain', async () => seen.length > 0 && (await inFlight(name)) === 0);
    expect(seen).toEqual(['same']);
  });

  it('counts a delivery whose consumer process was killed as a failed receive', async () => {
    const { name, source } = await ownSource('killed', { visibilityTimeoutMs: 1_000, maxReceives: 3 });
    await killedMidDelivery(name, '{"loan":1}', 'hangs');

    const receives: number[] = [];
    await consumeWith(name, async (m) => {
      receives.push(m.receives);
      throw new PermanentError('still bad');
    });
    const [dl] = await waitForDeadLetters('the message back and dead-lettered', source.id);
    expect(receives).toEqual([2]);
    expect(dl!.receiveCount).toBe(2);
    expect(historyOf(dl!)).toEqual([
      ['Timeout', 'VisibilityTimeout', 1],
      ['Rejected', 'PermanentError', 1],
    ]);
  });

  it('discards the late result of a consumer whose event loop blocked past the visibility timeout', async () => {
    const { name, source } = await ownSource('blocked', { visibilityTimeoutMs: 1_000, maxReceives: 5 });
    await send(name, text('{"order":2}'), {}, { messageId: 'slow' });
    const receives: number[] = [];
    await consumeWith(name, async (m) => {
      receives.push(m.receives);
      if (m.receives === 1) {
        // Blocks the whole process, lock renewal included, well past the lock: the lock expires.
        const until = Date.now() + 2_500;
        while (Date.now() < until);
        throw new PermanentError('a late verdict that must not be applied');
      }
    });
    await waitFor('the redelivery to acknowledge', async () => receives.length === 2 && (await inFlight(name)) === 0);
    expect(receives).toEqual([1, 2]);
    expect(await deadLetters(source.id)).toEqual([]);
  });

  it('parks a message whose deliveries all stalled at the next receive, as MaxReceives', async () => {
    const { name, source } = await ownSource('stalls', { visibilityTimeoutMs: 1_000, maxReceives: 1 });
    await killedMidDelivery(name, 'x', 'crashes-consumer');
    let called = false;
    await consumeWith(name, async () => {
      called = true;
    });
    const [dl] = await waitForDeadLetters('a MaxReceives dead letter', source.id);
    expect(called).toBe(false);
    expect(dl).toMatchObject({ reason: 'MaxReceives', receiveCount: 1, errorType: 'VisibilityTimeout' });
  });

  describe('redrive hooks', () => {
    async function parkOne(what: string) {
      const { name, source } = await ownSource(what, { maxReceives: 3, backoffBaseMs: 5, maxRedrives: 1 });
      await send(name, notUtf8, { 'x-tenant': 'acme' }, { messageId: 'm-13', key: 'k1' });
      let fixed = false;
      const seen: ReceivedMessage[] = [];
      await consumeWith(name, async (m) => {
        seen.push(m);
        if (!fixed) throw new PermanentError('unknown field "gift"');
      });
      const [dl] = await waitForDeadLetters('the dead letter', source.id);
      // Where the redrive engine stands once it has sent it: a task with a sent item, the dead letter redriving.
      const [task] = await pg()<{ id: string }[]>`
        INSERT INTO redrive_tasks (source_id, status, selection, total, sent, updated_at) VALUES (${source.id}, 'running', '{}', 1, 1, now()) RETURNING id`;
      await pg()`INSERT INTO redrive_items (task_id, seq, dead_letter_id, state, attempts, sent_at) VALUES (${task!.id}, 1, ${dl!.id.toString()}::bigint, 'sent', 1, now())`;
      await pg()`UPDATE dead_letters SET status = 'redriving' WHERE id = ${dl!.id.toString()}::bigint`;
      return { name, source, dl: dl!, taskId: task!.id, seen, fix: () => (fixed = true) };
    }

    it('sends a dead letter back byte-exact with its ids in headers, and records the acknowledgement', async () => {
      const { name, dl, taskId, seen, fix } = await parkOne('redrive-ack');
      fix();
      const [sent] = await redriveToSource(name, [
        {
          deadLetterId: dl.id,
          messageId: dl.messageId,
          payload: dl.payload!,
          headers: dl.headers as Record<string, unknown>,
          redriveCount: dl.redriveCount,
          enqueuedAt: dl.enqueuedAt,
          orderingKey: dl.orderingKey,
        },
      ]);
      expect(sent).toEqual({ deadLetterId: dl.id.toString(), messageId: 'm-13', redriveCount: 1 });
      await waitFor('the redriven message to be acknowledged', async () => seen.length === 2 && (await inFlight(name)) === 0);
      const m = seen[1]!;
      expect(Buffer.from(m.body)).toEqual(Buffer.from(notUtf8));
      expect(m.headers).toEqual({
        'x-tenant': 'acme',
        [TRIAGE_HEADERS.messageId]: 'm-13',
        [TRIAGE_HEADERS.redriveCount]: '1',
        [TRIAGE_HEADERS.deadLetterId]: dl.id.toString(),
      });
      expect(m.receives).toBe(1);
      expect(m.key).toBe('k1');
      await itemAcknowledged('the outcome', taskId);
      const task = await db().redriveTask.findUniqueOrThrow({ where: { id: taskId } });
      expect([task.sent, task.acknowledged, task.deadAgain]).toEqual([1, 1, 0]);
      expect((await db().deadLetter.findUniqueOrThrow({ where: { id: dl.id } })).status).toBe('redriven');
    });

    it('a success stays a success when Triage cannot record it: the handler runs once, nothing is dead-lettered, the outcome is recorded once Postgres takes it', async () => {
      const { name, source, dl, taskId, seen, fix } = await parkOne('redrive-ack-fault');
      fix();
      // Triage's side fails after the handler succeeded: the outcome's table refuses every query.
      await pg()`ALTER TABLE redrive_items RENAME TO redrive_items_away`;
      let restored = false;
      const restore = async () => {
        if (!restored) await pg()`ALTER TABLE redrive_items_away RENAME TO redrive_items`;
        restored = true;
      };
      try {
        await redriveToSource(name, [
          { deadLetterId: dl.id, messageId: dl.messageId, payload: dl.payload!, headers: dl.headers as Record<string, unknown>, redriveCount: 0 },
        ]);
        await waitFor('the redriven message to leave the queue', async () => seen.length >= 2 && (await inFlight(name)) === 0, 15_000);
        expect(seen.length).toBe(2); // the handler ran once: its success was not retried
        expect(await deadLetters(source.id)).toHaveLength(1); // and never became a dead letter (MaxReceives)
      } finally {
        await restore();
      }
      await itemAcknowledged('the deferred outcome', taskId);
      expect((await db().deadLetter.findUniqueOrThrow({ where: { id: dl.id } })).status).toBe('redriven');
      expect(seen.length).toBe(2);
    });

    it('records a redriven message that dies again as a new generation and a dead_again outcome', async () => {
      const { name, source, dl, taskId } = await parkOne('redrive-dead');
      await redriveToSource(name, [
        { deadLetterId: dl.id, messageId: dl.messageId, payload: dl.payload!, headers: dl.headers as Record<string, unknown>, redriveCount: 0 },
      ]);
      const rows = await waitForDeadLetters('a second dead letter', source.id, 2);
      expect(rows.map((r) => [r.messageId, r.generation, r.redriveCount, r.status])).toEqual([
        ['m-13', 0, 0, 'redriven'],
        ['m-13', 1, 1, 'open'],
      ]);
      expect(Buffer.from(rows[1]!.payload!)).toEqual(Buffer.from(notUtf8));
      expect(rows[1]!.headers).toEqual({ 'x-tenant': 'acme' });
      const task = await db().redriveTask.findUniqueOrThrow({ where: { id: taskId } });
      expect([task.sent, task.acknowledged, task.deadAgain]).toEqual([1, 0, 1]);
    });

    it('parks a message redriven more often than the source allows as RedriveLoop, without handling it', async () => {
      const { name, source, dl, seen, fix } = await parkOne('redrive-loop');
      fix();
      await redriveToSource(name, [{ deadLetterId: dl.id, messageId: dl.messageId, payload: dl.payload!, headers: {}, redriveCount: 1 }]);
      const rows = await waitForDeadLetters('a RedriveLoop dead letter', source.id, 2);
      expect(rows[1]).toMatchObject({ reason: 'RedriveLoop', generation: 2, redriveCount: 2 });
      expect(seen).toHaveLength(1);
    });
  });
});
