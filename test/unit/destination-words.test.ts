// What the redrive preview, the task page and the audit trail say about where messages go: for every
// source kind, the broker they really go to, never another kind's words.
import { describe, expect, it } from 'vitest';
import { SOURCE_KINDS } from '@/lib/model/source-kind';
import { describeDestination } from '@/lib/redrive/destination-source';

type Kind = (typeof SOURCE_KINDS)[number];

const words = (kind: Kind, redriveUrl: string | null = null) => describeDestination({ kind, name: 'shipments', redriveUrl });

// Each connector kind, and where its redrive goes in words.
const CONNECTOR_WORDS: Partial<Record<Kind, string>> = {
  rabbitmq: 'RabbitMQ: the exchange and routing key each message died from (or the target queue set on the source)',
  sqs: 'SQS: the source queue the messages came from',
  nats: "NATS JetStream: each message's original subject",
  bullmq: 'BullMQ: the queue each job failed on, as a new job',
};

describe('where a redrive goes, in words', () => {
  it.each(Object.entries(CONNECTOR_WORDS))('names the broker of %s, not a queue of the built-in runtime', (kind, expected) => {
    expect(words(kind as Kind)).toBe(expected);
  });

  it('keeps the built-in queue and the redacted redrive URL', () => {
    expect(words('builtin')).toBe('queue source.shipments');
    expect(words('ingest', 'https://hooks.example.com/redrive?token=s3cret')).toBe('POST https://hooks.example.com');
  });

  it("never gives another kind the built-in runtime's words", () => {
    for (const kind of SOURCE_KINDS.filter((k) => k !== 'builtin')) expect(words(kind), kind).not.toMatch(/^queue source\./);
  });
});
