// SQS import: long-poll the dead-letter queue (10 messages a receive, all attributes), record each
// batch, and delete it by receipt handle only after it committed (write, then delete). Until then a
// received message is only hidden: a crash lets it reappear after the visibility timeout, and the
// unique key (source, message id, generation) absorbs the second write. A batch whose write failed is
// released at once (visibility 0), never left hidden. A few receives run at once; each waits for its
// write before receiving again, so a slow Postgres slows the receives (backpressure).
import { ChangeMessageVisibilityBatchCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import type { NewDeadLetter } from '@/lib/deadletters/record-dead-letters';
import { log } from '@/lib/log';
import { ConnectorError, type ConnectorSource, type ImportSink } from '../types';
import type { SqsConfig, SqsSecret } from './config';
import { queueNameOf, sqsClient, sqsError } from './client';
import { toDeadLetter } from './message';

/** How often the queue's depth is read (the source's lag and "last successful poll"). */
const DEPTH_POLL_MS = 5_000;

function deadLetterOf(msg: Message, source: ConnectorSource<SqsConfig, SqsSecret>): NewDeadLetter {
  const sourceQueue = source.config.sourceQueueUrl ? queueNameOf(source.config.sourceQueueUrl) : null;
  try {
    return toDeadLetter(msg, { errorText: source.config.errorText, sourceQueue });
  } catch (err) {
    // A message whose attributes cannot be read is still recorded, never a poison for the import.
    return {
      messageId: msg.MessageId!,
      payload: Buffer.from(msg.Body ?? '', 'utf8'),
      reason: 'MaxReceives',
      errorType: 'TriageImportError',
      errorMessage: `Triage could not read this message's attributes: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

export async function importFromSqs(source: ConnectorSource<SqsConfig, SqsSecret>, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { queueUrl, waitTimeSeconds, visibilityTimeoutSeconds, pollers } = source.config;
  const client = sqsClient(source);
  let failure: ConnectorError | null = null;
  const stop = new AbortController();
  const fail = (err: unknown) => {
    failure ??= sqsError(err, source);
    stop.abort();
  };
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });

  const depth = async () => {
    const res = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }));
    sink.health({ lag: Number(res.Attributes?.ApproximateNumberOfMessages ?? 0) });
  };

  /** Give messages back at once: their write failed, they must not stay hidden for the visibility timeout. */
  const release = async (messages: Message[]) => {
    await client
      .send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 })),
        }),
      )
      .catch((err: unknown) => log.warn({ err: sqsError(err, source).message, source: source.name }, 'SQS: releasing unwritten messages failed; they reappear after the visibility timeout'));
  };

  const poll = async () => {
    while (!stop.signal.aborted) {
      let messages: Message[];
      try {
        const res = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: waitTimeSeconds,
            VisibilityTimeout: visibilityTimeoutSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          // A receive cut short may still have hidden messages: they reappear after the visibility timeout.
          { abortSignal: stop.signal },
        );
        messages = res.Messages ?? [];
      } catch (err) {
        if (stop.signal.aborted) return;
        throw err;
      }
      if (messages.length === 0) {
        sink.health();
        continue;
      }
      try {
        await sink.record(messages.map((m) => deadLetterOf(m, source)));
      } catch (err) {
        await release(messages);
        const why = err instanceof Error ? err.message : String(err);
        throw new ConnectorError('storage', `Recording ${messages.length} dead letters failed (${why}); they were released back to the queue`);
      }
      // Committed: now they may leave the queue. A delete that fails leaves them to reappear, absorbed by the unique key.
      const res = await client.send(
        new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }),
      );
      if (res.Failed?.length) {
        log.warn({ source: source.name, failed: res.Failed.map((f) => `${f.Code}: ${f.Message}`) }, 'SQS: some recorded messages were not deleted; they reappear and are recognised');
      }
    }
  };

  let depthTimer: NodeJS.Timeout | null = null;
  try {
    await depth().catch((err: unknown) => {
      throw sqsError(err, source);
    });
    depthTimer = setInterval(() => void depth().catch(fail), DEPTH_POLL_MS);
    await Promise.all(Array.from({ length: pollers }, () => poll().catch(fail)));
    if (failure) throw failure;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (depthTimer) clearInterval(depthTimer);
    client.destroy();
  }
}
