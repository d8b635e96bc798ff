import { describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { isDeadLetterAdvisory, parseAdvisory, redrivePublish, toDeadLetter, type StoredMessage } from '@/lib/connectors/nats/message';
import { captureStreamName } from '@/lib/connectors/nats/capture';
import { natsConfigSchema, natsSecretSchema } from '@/lib/connectors/nats/config';

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const maxDeliver = {
  type: 'io.nats.jetstream.advisory.v1.max_deliver',
  id: 'adv-1',
  timestamp: '2026-12-01T10:00:00.5Z',
  stream: 'ORDERS',
  consumer: 'worker',
  stream_seq: 42,
  deliveries: 5,
};
const stored: StoredMessage = {
  subject: 'orders.created.eu',
  seq: 42,
  data: json({ order: 1 }),
  time: new Date('2026-12-01T09:59:00Z'),
  headers: [
    ['Nats-Msg-Id', ['order-1']],
    ['x-trace', ['a', 'b']],
    ['MT-Fault-Message', ['Unknown field giftWrap']],
    ['MT-Fault-ExceptionType', ['Acme.UnknownFieldException']],
    ['Nats-Expected-Last-Sequence', ['41']],
  ],
};

describe('NATS JetStream message mapping', () => {
  it('reads max_deliver and terminated advisories, and nothing else', () => {
    expect(parseAdvisory(json(maxDeliver))).toEqual({
      kind: 'max_deliveries',
      id: 'adv-1',
      timestamp: new Date('2026-12-01T10:00:00.5Z'),
      stream: 'ORDERS',
      consumer: 'worker',
      streamSeq: 42,
      deliveries: 5,
      reason: null,
    });
    const term = parseAdvisory(json({ ...maxDeliver, type: 'io.nats.jetstream.advisory.v1.terminated', deliveries: 1, reason: 'schema v3 unknown' }))!;
    expect(term).toMatchObject({ kind: 'terminated', reason: 'schema v3 unknown' });
    expect(isDeadLetterAdvisory(term)).toBe(true);
    // nats-server terminates a pending message it removed itself (no delivery): nothing died.
    expect(isDeadLetterAdvisory({ ...term, deliveries: 0 })).toBe(false);
    expect(parseAdvisory(json({ ...maxDeliver, type: 'io.nats.jetstream.advisory.v1.nak' }))).toBeNull();
    expect(parseAdvisory(json({ ...maxDeliver, stream_seq: 0 }))).toBeNull();
    expect(parseAdvisory(new TextEncoder().encode('not json'))).toBeNull();
  });

  it('maps a message with its delivery count, subject, headers and error text', () => {
    const d = toDeadLetter(parseAdvisory(json(maxDeliver))!, stored);
    expect(d).toMatchObject({
      messageId: 'order-1',
      generation: 0,
      reason: 'MaxReceives',
      receiveCount: 5,
      errorType: 'Acme.UnknownFieldException',
      errorMessage: 'Unknown field giftWrap',
      enqueuedAt: stored.time,
      deadAt: new Date('2026-12-01T10:00:00.5Z'),
      consumerName: 'worker',
    });
    expect(d.headers).toMatchObject({
      'x-trace': ['a', 'b'],
      $nats: { stream: 'ORDERS', consumer: 'worker', subject: 'orders.created.eu', seq: 42, advisory: 'max_deliveries' },
    });
    expect(d.failureHistory).toEqual([
      {
        reason: 'max_deliveries',
        errorType: 'Acme.UnknownFieldException',
        errorMessage: 'Unknown field giftWrap',
        count: 5,
        firstAt: '2026-12-01T10:00:00.500Z',
        lastAt: '2026-12-01T10:00:00.500Z',
        queue: 'ORDERS > worker',
        routingKeys: ['orders.created.eu'],
      },
    ]);
    // A termination's reason is the error message when no header has one.
    const term = toDeadLetter(parseAdvisory(json({ ...maxDeliver, type: 'io.nats.jetstream.advisory.v1.terminated', deliveries: 1, reason: 'bad schema' }))!, {
      ...stored,
      headers: [],
    });
    expect(term).toMatchObject({ messageId: 'ORDERS:42', reason: 'Rejected', errorMessage: 'bad schema', receiveCount: 1 });
  });

  it('keeps a message gone from the stream as a tombstone, which a redrive refuses', () => {
    const d = toDeadLetter(parseAdvisory(json(maxDeliver))!, null);
    expect(d).toMatchObject({ messageId: 'ORDERS:42', payload: new Uint8Array(0), receiveCount: 5, enqueuedAt: null });
    const out = redrivePublish(outgoingRedrive({ deadLetterId: 9n, messageId: d.messageId, payload: d.payload, headers: d.headers! }));
    expect(out).toEqual({ error: 'The message was gone from stream "ORDERS" before Triage read it (sequence 42): there is nothing to redrive' });
  });

  it("redrives to the subject and stream the original came from, whatever an edited copy's headers say", () => {
    const d = toDeadLetter(parseAdvisory(json(maxDeliver))!, stored);
    const forged = { ...d.headers!, $nats: { ...(d.headers!.$nats as Record<string, unknown>), subject: 'payments.refund', stream: 'PAYMENTS' } };
    const out = redrivePublish(outgoingRedrive({ deadLetterId: 77n, messageId: d.messageId, payload: d.payload, headers: forged, origin: d.headers! }));
    if ('error' in out) throw new Error(out.error);
    expect(out).toMatchObject({ subject: 'orders.created.eu', stream: 'ORDERS' });
  });

  it('redrives to the original subject with the original headers, a new Nats-Msg-Id, and is recognised as the next generation', () => {
    const d = toDeadLetter(parseAdvisory(json(maxDeliver))!, stored);
    const out = redrivePublish(outgoingRedrive({ deadLetterId: 77n, messageId: d.messageId, payload: d.payload, headers: d.headers! }));
    if ('error' in out) throw new Error(out.error);
    expect(out).toMatchObject({ subject: 'orders.created.eu', stream: 'ORDERS', msgId: 'triage-77-1' });
    // The stream's own instructions (dedupe id, expected sequence) are not replayed.
    expect(out.headers).toEqual([
      ['x-trace', 'a'],
      ['x-trace', 'b'],
      ['MT-Fault-Message', 'Unknown field giftWrap'],
      ['MT-Fault-ExceptionType', 'Acme.UnknownFieldException'],
      ['Triage-Original-Id', 'order-1'],
      ['Triage-Redrive-Count', '1'],
      ['Triage-Dead-Letter-Id', '77'],
    ]);
    const again = toDeadLetter(parseAdvisory(json({ ...maxDeliver, stream_seq: 90 }))!, {
      ...stored,
      seq: 90,
      headers: [['Nats-Msg-Id', ['triage-77-1']], ...out.headers.map(([k, v]): [string, string[]] => [k, [v]])],
    });
    expect(again).toMatchObject({ messageId: 'order-1', generation: 1, redriveCount: 1 });
  });

  it('names one capture stream per stream and consumer, and checks settings', () => {
    expect(captureStreamName('ORDERS', 'worker')).toMatch(/^TRIAGE_ADVISORIES_[0-9A-F]{16}$/);
    expect(captureStreamName('ORDERS', 'worker')).not.toBe(captureStreamName('ORDERS', 'worker2'));
    expect(natsConfigSchema.safeParse({ stream: 'ORDERS', consumer: 'worker' }).data).toEqual({
      stream: 'ORDERS',
      consumer: 'worker',
      deleteAfterImport: false,
      batchSize: 250,
    });
    expect(natsConfigSchema.safeParse({ stream: 'orders.eu', consumer: 'worker' }).success).toBe(false);
    expect(natsSecretSchema.safeParse({ url: 'amqp://x' }).success).toBe(false);
    expect(natsSecretSchema.safeParse({ url: 'nats://h:4222', pass: 'p' }).success).toBe(false);
  });
});
