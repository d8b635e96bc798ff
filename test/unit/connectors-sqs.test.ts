// The SQS mapping (lib/connectors/sqs/message.ts) and settings, without a server: what a received
// message becomes, and what a redrive sends.
import { describe, expect, it } from 'vitest';
import { outgoingRedrive } from '../support/outgoing';
import { regionOfQueueUrl, queueNameOf, isFifoQueue } from '@/lib/connectors/sqs/client';
import { sqsConfigSchema, sqsSecretSchema } from '@/lib/connectors/sqs/config';
import { redriveEntry, toDeadLetter } from '@/lib/connectors/sqs/message';
import { dlqRetentionTrap } from '@/lib/connectors/sqs/traps';
import type { OutgoingRedrive } from '@/lib/redrive/destinations';

const outgoing = (headers: Record<string, unknown>, extra: Partial<OutgoingRedrive> = {}): OutgoingRedrive =>
  outgoingRedrive({ deadLetterId: 42n, payload: Buffer.from('{"order":1}'), headers, ...extra });

// Two message attributes as SQS carries them, a string and a binary one: read as headers, and sent
// back the same way.
const TENANT = { DataType: 'String', StringValue: 'acme' };
const SIGNATURE = { DataType: 'Binary', BinaryValue: Buffer.from([1, 2]) };

describe('SQS connector mapping', () => {
  it('maps a received message: attributes typed, system attributes, ids, times, FIFO keys', () => {
    const now = new Date('2026-12-01T10:00:00Z');
    const d = toDeadLetter(
      {
        MessageId: 'sqs-2',
        Body: '{"order":1}',
        Attributes: {
          ApproximateReceiveCount: '4',
          SentTimestamp: '1764500000000',
          ApproximateFirstReceiveTimestamp: '1764500001000',
          MessageGroupId: 'g',
          MessageDeduplicationId: 'd',
        },
        MessageAttributes: {
          tenant: TENANT,
          n: { DataType: 'Number.int', StringValue: '7' },
          sig: SIGNATURE,
          'triage-original-id': { DataType: 'String', StringValue: 'sqs-1' },
          'triage-redrive-count': { DataType: 'Number', StringValue: '2' },
          'x-exception-message': { DataType: 'String', StringValue: 'boom' },
        },
      },
      { sourceQueue: 'orders', now },
    );
    expect(d).toMatchObject({
      messageId: 'sqs-1',
      generation: 2,
      redriveCount: 2,
      reason: 'MaxReceives',
      receiveCount: 4,
      errorMessage: 'boom',
      orderingKey: 'g',
      idempotencyKey: 'd',
      consumerName: 'orders',
      enqueuedAt: new Date(1764500000000),
      firstFailedAt: new Date(1764500001000),
    });
    expect(d.headers).toMatchObject({
      tenant: 'acme',
      n: { $type: 'Number.int', value: '7' },
      sig: { $type: 'Binary', $bytes: 'AQI=' },
      $sqs: { MessageId: 'sqs-2' },
    });
  });

  it("sends the attributes back with their types plus Triage's, replacing an older redrive's", () => {
    const r = redriveEntry(
      outgoing(
        {
          tenant: 'acme',
          n: { $type: 'Number', value: '7' },
          sig: { $type: 'Binary', $bytes: 'AQI=' },
          'triage-redrive-count': { $type: 'Number', value: '0' },
          $sqs: { MessageId: 'x' },
        },
        { redriveCount: 1 },
      ),
      '0',
      { fifo: false },
    );
    if ('error' in r) throw new Error(r.error);
    expect(r.entry.MessageAttributes).toEqual({
      tenant: TENANT,
      n: { DataType: 'Number', StringValue: '7' },
      sig: SIGNATURE,
      'triage-original-id': { DataType: 'String', StringValue: 'm-1' },
      'triage-redrive-count': { DataType: 'Number', StringValue: '2' },
    });
    expect(r.entry.MessageGroupId).toBeUndefined();
  });

  it('refuses what cannot be sent: 9 own attributes, a FIFO message without a group, a body that is not UTF-8', () => {
    const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`a${i}`, 'v']));
    expect(redriveEntry(outgoing(nine), '0', { fifo: false })).toEqual({ error: expect.stringContaining('has 9 message attributes') });
    expect('entry' in redriveEntry(outgoing(Object.fromEntries(Object.entries(nine).slice(0, 8))), '0', { fifo: false })).toBe(true);
    expect(redriveEntry(outgoing({}), '0', { fifo: true })).toEqual({ error: expect.stringContaining('message group id') });
    expect(redriveEntry(outgoing({}, { payload: Buffer.from([0xff, 0xfe]) }), '0', { fifo: false })).toEqual({ error: expect.stringContaining('not UTF-8') });
    const fifo = redriveEntry(outgoing({ $sqs: { MessageGroupId: 'g' } }), '0', { fifo: true });
    expect(fifo).toMatchObject({ entry: { MessageGroupId: 'g', MessageDeduplicationId: 'triage-42-1' } });
  });

  it('reads queue URLs and checks settings', () => {
    expect(regionOfQueueUrl('https://sqs.eu-west-1.amazonaws.com/123456789012/orders-dlq')).toBe('eu-west-1');
    expect(queueNameOf('http://localhost:4566/000000000000/orders.fifo')).toBe('orders.fifo');
    expect(isFifoQueue('http://localhost:4566/000000000000/orders.fifo')).toBe(true);
    expect(sqsConfigSchema.safeParse({ queueUrl: 'not a url' }).success).toBe(false);
    expect(sqsConfigSchema.parse({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/q' })).toMatchObject({ waitTimeSeconds: 20, pollers: 4 });
    expect(sqsSecretSchema.safeParse({ accessKeyId: 'AKIA' }).success).toBe(false);
    expect(sqsSecretSchema.safeParse({}).success).toBe(true);
  });

  it('warns on the retention trap only when the DLQ does not keep longer', () => {
    expect(dlqRetentionTrap({ name: 'dlq', retentionSeconds: 345_600, fifo: false }, { name: 'q', retentionSeconds: 345_600, fifo: false })?.message).toContain(
      'not longer than its source queue',
    );
    expect(dlqRetentionTrap({ name: 'dlq', retentionSeconds: 1_209_600, fifo: false }, { name: 'q', retentionSeconds: 345_600, fifo: false })).toBeNull();
  });
});
