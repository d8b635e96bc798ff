// What the redrive preview, the task page and the audit trail say about where messages go: for every
// source kind, the broker they really go to, never another kind's words.
import { describe, expect, it } from 'vitest';
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { describeDestination } from '@/lib/redrive/destination-source';

const words = (kind: (typeof SOURCE_KINDS)[number], redriveUrl: string | null = null) => describeDestination({ kind, name: 'shipments', redriveUrl });

describe('where a redrive goes, in words', () => {
  it('names the broker of each connector kind, not a queue of the built-in runtime', () => {
    expect(words('rabbitmq')).toBe('RabbitMQ: the exchange and routing key each message died from (or the target queue set on the source)');
    expect(words('sqs')).toBe('SQS: the source queue the messages came from');
    expect(words('nats')).toBe("NATS JetStream: each message's original subject");
    expect(words('bullmq')).toBe('BullMQ: the queue each job failed on, as a new job');
  });

  it('keeps the built-in queue and the redacted redrive URL', () => {
    expect(words('builtin')).toBe('queue source.shipments');
    expect(words('ingest', 'https://hooks.example.com/redrive?token=s3cret')).toBe('POST https://hooks.example.com');
  });

  it("never gives another kind the built-in runtime's words", () => {
    for (const kind of SOURCE_KINDS.filter((k) => k !== 'builtin')) expect(words(kind), kind).not.toMatch(/^queue source\./);
  });
});
