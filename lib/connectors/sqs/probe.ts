// "Test connection" for an SQS source: the DLQ exists, its depth (the lag), its source queues (from
// ListDeadLetterSourceQueues or the configuration) with their redrive policies, and both queues'
// retention. The retention trap: SQS keeps a message that moved to a standard DLQ for the DLQ's
// retention counted from when it was first sent, so a DLQ whose retention is not longer than its
// source's deletes dead letters as soon as they arrive, or soon after, without a word.
import { GetQueueAttributesCommand, ListDeadLetterSourceQueuesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { connectorSourceOf, type ConnectorSourceRow } from '..';
import type { ConnectorSource, ProbeReport } from '../types';
import type { SqsConfig, SqsSecret } from './config';
import { queueNameOf, sqsClient, sqsError } from './client';

const duration = (s: number) => (s % 86400 === 0 ? `${s / 86400} d` : s % 3600 === 0 ? `${s / 3600} h` : `${s} s`);

/** The retention-trap warning for a DLQ and its source queue's retention (seconds), or null when the DLQ keeps longer. */
export function retentionWarning(dlq: { name: string; retentionSeconds: number }, source: { name: string; retentionSeconds: number }): string | null {
  if (dlq.retentionSeconds > source.retentionSeconds) return null;
  return (
    `The dead-letter queue "${dlq.name}" keeps messages ${duration(dlq.retentionSeconds)}, not longer than its source queue "${source.name}" (${duration(source.retentionSeconds)}). ` +
    `SQS counts a dead letter's retention from when it was first sent, so it can delete dead letters before Triage imports them: set the DLQ's MessageRetentionPeriod longer (up to 14 d).`
  );
}

async function attributes(client: SQSClient, url: string, names: string[], signal?: AbortSignal): Promise<Record<string, string>> {
  const res = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: names as never }), { abortSignal: signal });
  return res.Attributes ?? {};
}

/** The source queues of the DLQ: the configured one, else what SQS lists (an emulator may not implement it). */
async function sourceQueues(client: SQSClient, source: ConnectorSource<SqsConfig, SqsSecret>, signal?: AbortSignal): Promise<{ urls: string[]; note?: string }> {
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
    const dlq = await attributes(client, queueUrl, ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'MessageRetentionPeriod', 'FifoQueue'], signal);
    const dlqRetention = Number(dlq.MessageRetentionPeriod ?? 345_600);
    const facts: ProbeReport['facts'] = {
      queue: dlqName,
      exists: true,
      depth: Number(dlq.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(dlq.ApproximateNumberOfMessagesNotVisible ?? 0),
      fifo: dlq.FifoQueue === 'true',
      retentionSeconds: dlqRetention,
    };
    const warnings: string[] = [];
    const sources = await sourceQueues(client, source, signal);
    if (sources.note) facts.sourceQueues = sources.note;
    else facts.sourceQueues = sources.urls.length ? sources.urls.map(queueNameOf).join(', ') : 'none (no queue has this DLQ in its redrive policy)';
    if (!source.config.sourceQueueUrl && sources.urls.length !== 1) {
      warnings.push(sources.urls.length > 1 ? 'Several queues dead-letter into this DLQ: a redrive needs the source queue set on the source' : 'Triage cannot tell the source queue: set it on the source for redrives');
    }
    for (const url of sources.urls) {
      const name = queueNameOf(url);
      try {
        const a = await attributes(client, url, ['MessageRetentionPeriod', 'RedrivePolicy'], signal);
        const retention = Number(a.MessageRetentionPeriod ?? 345_600);
        facts[`${name}.retentionSeconds`] = retention;
        facts[`${name}.redrivePolicy`] = a.RedrivePolicy ?? null;
        const w = retentionWarning({ name: dlqName, retentionSeconds: dlqRetention }, { name, retentionSeconds: retention });
        if (w) warnings.push(w);
      } catch (err) {
        facts[`${name}.error`] = sqsError(err, source, url).message;
      }
    }
    const summary = `Queue "${dlqName}" exists: ${facts.depth} messages, ${facts.inFlight} in flight`;
    return { ok: true, summary: warnings.length ? `${summary}; ${warnings.length} warning${warnings.length > 1 ? 's' : ''}` : summary, facts, ...(warnings.length ? { warnings } : {}) };
  } catch (err) {
    const error = sqsError(err, source).message;
    return { ok: false, summary: error, facts: { queue: dlqName }, error };
  } finally {
    client.destroy();
  }
}

const isRetentionWarning = (w: string) => w.includes('MessageRetentionPeriod');

/**
 * The retention trap of a stored SQS source (for its page): the probe's retention warnings (empty
 * when the DLQ keeps messages longer than its source queue), or the probe's error when the queues
 * cannot be read.
 */
export async function sqsRetentionCheck(row: ConnectorSourceRow, signal?: AbortSignal): Promise<{ warnings: string[] } | { error: string }> {
  const { source } = connectorSourceOf(row);
  const report = await probeSqs(source as ConnectorSource<SqsConfig, SqsSecret>, signal);
  return report.ok ? { warnings: (report.warnings ?? []).filter(isRetentionWarning) } : { error: report.error ?? report.summary };
}

/** The retention-trap warnings of a stored SQS source; empty as well when the queues cannot be read. */
export async function sqsRetentionWarnings(row: ConnectorSourceRow, signal?: AbortSignal): Promise<string[]> {
  const check = await sqsRetentionCheck(row, signal);
  return 'warnings' in check ? check.warnings : [];
}
