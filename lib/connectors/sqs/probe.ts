// "Test connection" for an SQS source: the DLQ exists, its depth (the lag), its source queues (from
// ListDeadLetterSourceQueues or the configuration) with their redrive policies, and both queues'
// settings checked against the known traps (./traps.ts): the retention trap, maxReceiveCount 1, the
// retry loop near the retention, a FIFO source.
import { GetQueueAttributesCommand, ListDeadLetterSourceQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type ConnectorSource, foundQueueReport, type ProbeReport } from '../types';
import type { SqsConfig, SqsSecret } from './config';
import { isFifoQueue, queueNameOf, sqsClient, sqsError } from './client';
import { maxReceiveCountOf, sqsTraps, type SqsSourceQueueSettings } from './traps';

const DEFAULT_RETENTION_SECONDS = 345_600;
const DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;

async function attributes(client: SQSClient, url: string, names: string[], signal?: AbortSignal): Promise<Record<string, string>> {
  const res = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: names as never }), { abortSignal: signal });
  return res.Attributes ?? {};
}

/** The source queues of the DLQ: the configured one, else what SQS lists (an emulator may not implement it). */
async function sourceQueues(
  client: SQSClient,
  source: ConnectorSource<SqsConfig, SqsSecret>,
  signal?: AbortSignal,
): Promise<{ urls: string[]; note?: string }> {
  if (source.config.sourceQueueUrl) return { urls: [source.config.sourceQueueUrl] };
  try {
    const res = await client.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: source.config.queueUrl }), { abortSignal: signal });
    return { urls: res.queueUrls ?? [] };
  } catch (err) {
    return { urls: [], note: `ListDeadLetterSourceQueues failed: ${sqsError(err, source).message}` };
  }
}

export async function probeSqs(source: ConnectorSource<SqsConfig, SqsSecret>, signal?: AbortSignal): Promise<ProbeReport> {
  const { queueUrl } = source.config;
  const dlqName = queueNameOf(queueUrl);
  const client = sqsClient(source);
  try {
    const dlq = await attributes(
      client,
      queueUrl,
      ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'MessageRetentionPeriod', 'FifoQueue'],
      signal,
    );
    const dlqSettings = {
      name: dlqName,
      retentionSeconds: Number(dlq.MessageRetentionPeriod ?? DEFAULT_RETENTION_SECONDS),
      fifo: dlq.FifoQueue === 'true' || isFifoQueue(queueUrl),
    };
    const facts: ProbeReport['facts'] = {
      queue: dlqName,
      exists: true,
      depth: Number(dlq.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(dlq.ApproximateNumberOfMessagesNotVisible ?? 0),
      fifo: dlqSettings.fifo,
      retentionSeconds: dlqSettings.retentionSeconds,
    };
    const notes: string[] = [];
    const sources = await sourceQueues(client, source, signal);
    if (sources.note) facts.sourceQueues = sources.note;
    else facts.sourceQueues = sources.urls.length ? sources.urls.map(queueNameOf).join(', ') : 'none (no queue has this DLQ in its redrive policy)';
    if (!source.config.sourceQueueUrl && sources.urls.length !== 1) {
      notes.push(
        sources.urls.length > 1
          ? 'Several queues dead-letter into this DLQ: a redrive needs the source queue set on the source'
          : 'Triage cannot tell the source queue: set it on the source for redrives',
      );
    }
    const read: SqsSourceQueueSettings[] = [];
    for (const url of sources.urls) {
      const name = queueNameOf(url);
      try {
        const a = await attributes(client, url, ['MessageRetentionPeriod', 'RedrivePolicy', 'VisibilityTimeout', 'FifoQueue'], signal);
        const settings = {
          name,
          retentionSeconds: Number(a.MessageRetentionPeriod ?? DEFAULT_RETENTION_SECONDS),
          visibilityTimeoutSeconds: Number(a.VisibilityTimeout ?? DEFAULT_VISIBILITY_TIMEOUT_SECONDS),
          maxReceiveCount: maxReceiveCountOf(a.RedrivePolicy),
          fifo: a.FifoQueue === 'true' || isFifoQueue(url),
        };
        read.push(settings);
        facts[`${name}.retentionSeconds`] = settings.retentionSeconds;
        facts[`${name}.visibilityTimeoutSeconds`] = settings.visibilityTimeoutSeconds;
        facts[`${name}.redrivePolicy`] = a.RedrivePolicy ?? null;
      } catch (err) {
        facts[`${name}.error`] = sqsError(err, source, url).message;
      }
    }
    const traps = sqsTraps(dlqSettings, read);
    const summary = `Queue "${dlqName}" exists: ${facts.depth} messages, ${facts.inFlight} in flight`;
    return foundQueueReport(summary, facts, traps, notes);
  } catch (err) {
    const error = sqsError(err, source).message;
    return { ok: false, summary: error, facts: { queue: dlqName }, error };
  } finally {
    client.destroy();
  }
}
