// SQS as a redrive destination: SendMessageBatch to the source queue (10 entries, ≤ 1 MiB a call),
// each message with its original body and attributes plus Triage's original id and redrive count.
// The source queue is the configured one, else the one the message's DeadLetterQueueSourceArn names,
// else the only queue ListDeadLetterSourceQueues finds. An entry SQS fails with SenderFault is the
// message's failure; a network error, throttling or a server fault is the infrastructure's (the
// runner waits and retries; the breaker does not count it).
import { GetQueueUrlCommand, ListDeadLetterSourceQueuesCommand, SendMessageBatchCommand, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import type { ConnectorSource } from '../types';
import type { SqsConfig, SqsSecret } from './config';
import { isFifoQueue, isInfrastructureError, queueNameOf, sqsClient, sqsError } from './client';
import { SYSTEM_KEY, redriveEntry } from './message';

/** SQS's limit on one SendMessageBatch: its entries' bodies and attributes together. */
const BATCH_MAX_BYTES = 1024 * 1024;
const BATCH_MAX_ENTRIES = 10;

export function sqsDestination(source: ConnectorSource<SqsConfig, SqsSecret>): RedriveDestination {
  const client = sqsClient(source);
  const byArn = new Map<string, Promise<string>>();
  let listed: Promise<string> | null = null;

  /** Where a message goes back to, or why Triage cannot tell. */
  async function targetOf(m: OutgoingRedrive): Promise<string> {
    if (source.config.sourceQueueUrl) return source.config.sourceQueueUrl;
    // From the original's stored attributes: an edited copy cannot send itself elsewhere.
    const arn = ((m.origin[SYSTEM_KEY] ?? {}) as Record<string, unknown>).DeadLetterQueueSourceArn;
    if (typeof arn === 'string' && arn.startsWith('arn:')) {
      const [, , , , account, name] = arn.split(':');
      if (!byArn.has(arn)) {
        const p = client.send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account })).then((r) => r.QueueUrl!);
        p.catch(() => byArn.delete(arn));
        byArn.set(arn, p);
      }
      return byArn.get(arn)!;
    }
    listed ??= client.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: source.config.queueUrl })).then((r) => {
      const urls = r.queueUrls ?? [];
      if (urls.length !== 1) {
        // Lambda, EventBridge and SNS send to their DLQ themselves: no redrive policy names a queue for them.
        const fix = 'set the source queue URL on the source (for AWS failure records: a queue that triggers the function), or its redrive URL';
        throw Object.assign(
          new Error(
            urls.length
              ? `${urls.length} queues dead-letter into "${queueNameOf(source.config.queueUrl)}": ${fix}`
              : `No queue dead-letters into "${queueNameOf(source.config.queueUrl)}": ${fix}`,
          ),
          { name: 'TriageNoTarget' },
        );
      }
      return urls[0]!;
    });
    listed.catch(() => (listed = null));
    return listed;
  }

  async function sendChunk(queueUrl: string, chunk: { index: number; entry: SendMessageBatchRequestEntry }[], results: DeliveryResult[]) {
    try {
      const res = await client.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map((c) => c.entry) }));
      const byId = new Map(chunk.map((c) => [c.entry.Id!, c.index]));
      for (const ok of res.Successful ?? []) results[byId.get(ok.Id!)!] = { ok: true, acknowledged: false };
      for (const f of res.Failed ?? []) {
        results[byId.get(f.Id!)!] = {
          ok: false,
          error: `SQS refused the message (${f.Code}): ${f.Message ?? ''}`.trim(),
          failure: f.SenderFault ? 'message' : 'infrastructure',
        };
      }
      // An entry SQS answered neither way: not known to be sent, so sent again later.
      for (const c of chunk) results[c.index] ??= { ok: false, error: 'SQS did not answer for this message', failure: 'infrastructure' };
    } catch (err) {
      const result = unsent(err, queueUrl);
      for (const c of chunk) results[c.index] = result;
    }
  }

  /**
   * A call SQS refused or did not answer. A refusal no retry can fix (no such queue, access denied,
   * an action the server does not know) pauses the task with what to set; an outage (network,
   * throttling, a server fault) is retried with backoff; anything else is this message's.
   */
  function unsent(err: unknown, queueUrl: string): DeliveryResult {
    const name = `${(err as { name?: string })?.name ?? ''} ${(err as { Code?: string })?.Code ?? ''}`;
    const error = sqsError(err, source, queueUrl).message;
    const fix = source.config.sourceQueueUrl ? 'check the source queue URL on the source' : 'set the source queue URL on the source';
    if (/QueueDoesNotExist|NonExistentQueue/i.test(name)) return { ok: false, error: `${error}: ${fix}`, failure: 'refused' };
    if (/AccessDenied/i.test(name)) return { ok: false, error: `${error}: give the source's credentials sqs:SendMessage there, or ${fix}`, failure: 'refused' };
    if (/InvalidAction|UnknownOperation|UnsupportedOperation|NotImplemented/i.test(name)) {
      return { ok: false, error: `${error}: this server cannot tell where the messages came from, so ${fix}`, failure: 'refused' };
    }
    return { ok: false, error, failure: isInfrastructureError(err) ? 'infrastructure' : 'message' };
  }

  return {
    description: source.config.sourceQueueUrl
      ? `SQS queue "${queueNameOf(source.config.sourceQueueUrl)}"`
      : `SQS, the source queue of "${queueNameOf(source.config.queueUrl)}"`,
    failures: 'infrastructure',
    // A FIFO dead-letter queue's sources are FIFO too: one batch at a time keeps each group's order.
    maxInFlight: [source.config.queueUrl, source.config.sourceQueueUrl].some((u) => u && isFifoQueue(u)) ? 1 : undefined,
    async deliver(batch: OutgoingRedrive[]): Promise<DeliveryResult[]> {
      const results: DeliveryResult[] = new Array(batch.length);
      // Per target queue, in order: chunks of at most 10 entries and 1 MiB.
      const chunks = new Map<string, { index: number; entry: SendMessageBatchRequestEntry; size: number }[][]>();
      for (const [index, m] of batch.entries()) {
        let queueUrl: string;
        try {
          queueUrl = await targetOf(m);
        } catch (err) {
          const e = err as Error;
          results[index] = e.name === 'TriageNoTarget' ? { ok: false, error: e.message, failure: 'refused' } : unsent(err, source.config.queueUrl);
          continue;
        }
        const built = redriveEntry(m, String(index), { fifo: isFifoQueue(queueUrl) });
        if ('error' in built) {
          results[index] = { ok: false, error: built.error, failure: 'message' };
          continue;
        }
        const list = chunks.get(queueUrl) ?? [[]];
        chunks.set(queueUrl, list);
        let last = list[list.length - 1]!;
        const bytes = last.reduce((n, c) => n + c.size, 0);
        if (last.length >= BATCH_MAX_ENTRIES || (last.length > 0 && bytes + built.size > BATCH_MAX_BYTES)) list.push((last = []));
        last.push({ index, entry: built.entry, size: built.size });
      }
      await Promise.all([...chunks].flatMap(([url, list]) => list.filter((c) => c.length).map((c) => sendChunk(url, c, results))));
      return results;
    },
    async close(): Promise<void> {
      client.destroy();
    },
  };
}
