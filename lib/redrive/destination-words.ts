// Where a redrive sends its messages, in the words of the source's kind: the preview, the task page
// and the audit trail say the same thing. Pure (the task page is a client component).
import { redactUrl } from '@/lib/outbound/redact-url';
import type { SourceKind } from '@/lib/model/source-kind';

const CONNECTOR_WORDS: Record<Exclude<SourceKind, 'builtin' | 'ingest'>, string> = {
  rabbitmq: 'RabbitMQ: the exchange and routing key each message died from (or the target queue set on the source)',
  sqs: 'SQS: the source queue the messages came from',
  nats: "NATS JetStream: each message's original subject",
  bullmq: 'BullMQ: the queue each job failed on, as a new job',
  sidekiq: "Sidekiq: each job's own queue (queue:<name>), out of the dead set, as Retry Now does",
  azure_queue: "Azure Storage: the target queue (the poison queue's own queue unless the source names another), the exact bytes",
};

/** `redriveUrl` undefined: not known to the caller (a page without it), said without the host. */
export function destinationWords(source: { kind: SourceKind; name: string; redriveUrl?: string | null }): string {
  if (source.kind === 'builtin') return `queue source.${source.name}`;
  // Scheme and host only: a redrive URL may carry a token.
  if (source.kind === 'ingest')
    return source.redriveUrl === undefined ? 'its redrive URL (POST)' : `POST ${redactUrl(source.redriveUrl) ?? '(no redrive URL set)'}`;
  return CONNECTOR_WORDS[source.kind];
}
