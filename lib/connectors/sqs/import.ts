// SQS import: long-poll the dead-letter queue (10 messages a receive, all attributes), record each
// batch, and delete it by receipt handle only after it committed (write, then delete). Until then a
// received message is only hidden: a crash lets it reappear after the visibility timeout, and the
// unique key (source, message id, generation) absorbs the second write. A batch whose write failed is
// released at once (visibility 0), never left hidden. A few receives run at once and feed one writer,
// which records up to batchSize per transaction; receives wait while 2 × batchSize messages are
// received and not yet deleted, so a slow Postgres slows the receives (backpressure).
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
} from '@aws-sdk/client-sqs';
import type { NewDeadLetter } from '@/lib/model/dead-letter';
import { log } from '@/lib/log';
import { ConnectorError, type ConnectorSource, type ImportSink } from '../types';
import type { SqsConfig, SqsSecret } from './config';
import { queueNameOf, sqsClient, sqsError } from './client';
import { toDeadLetter } from './message';

/** SQS's batch calls take at most 10 entries. */
const chunksOf10 = <T>(xs: T[]): T[][] => Array.from({ length: Math.ceil(xs.length / 10) }, (_, i) => xs.slice(i * 10, i * 10 + 10));

/** How often the queue's depth is read (the source's lag and "last successful poll"). */
const DEPTH_POLL_MS = 5_000;

function deadLetterOf(msg: Message, source: ConnectorSource<SqsConfig, SqsSecret>): NewDeadLetter {
  const sourceQueue = source.config.sourceQueueUrl ? queueNameOf(source.config.sourceQueueUrl) : null;
  try {
    return toDeadLetter(msg, { errorText: source.config.errorText, sourceQueue, envelope: source.config.envelope });
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
    await Promise.all(
      chunksOf10(messages).map((chunk) =>
        client
          .send(
            new ChangeMessageVisibilityBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle!, VisibilityTimeout: 0 })),
            }),
          )
          .catch((err: unknown) =>
            log.warn(
              { err: sqsError(err, source).message, source: source.name },
              'SQS: releasing unwritten messages failed; they reappear after the visibility timeout',
            ),
          ),
      ),
    );
  };

  // Receives fill `pending`; one writer at a time records up to batchSize of them, then deletes them.
  // Receives wait while maxInFlight messages are received but not yet deleted (backpressure).
  const batchSize = source.config.batchSize;
  const maxInFlight = batchSize * 2;
  let pending: Message[] = [];
  let inFlight = 0;
  let wakeWriter: (() => void) | null = null;
  const wakePollers: (() => void)[] = [];
  const spaceFreed = () => {
    for (const w of wakePollers.splice(0)) w();
  };
  const nudgeWriter = () => {
    const w = wakeWriter;
    wakeWriter = null;
    w?.();
  };
  stop.signal.addEventListener('abort', () => {
    spaceFreed();
    nudgeWriter();
  });

  const poll = async () => {
    while (!stop.signal.aborted) {
      if (inFlight >= maxInFlight) {
        await new Promise<void>((r) => wakePollers.push(r));
        continue;
      }
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
          // Cut short only when the import stops (pause, shutdown): what it may have hidden reappears after the
          // visibility timeout. After a failure elsewhere it completes, and what it got is released at once.
          { abortSignal: signal },
        );
        messages = res.Messages ?? [];
      } catch (err) {
        if (stop.signal.aborted) break;
        throw err;
      }
      if (stop.signal.aborted) {
        if (messages.length) await release(messages);
        break;
      }
      if (messages.length === 0) {
        sink.health();
        continue;
      }
      inFlight += messages.length;
      pending.push(...messages);
      nudgeWriter();
    }
  };

  const deleteAll = async (messages: Message[]) => {
    await Promise.all(
      chunksOf10(messages).map(async (chunk) => {
        const res = await client.send(
          new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: chunk.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }),
        );
        // Not deleted: it reappears after the visibility timeout and the unique key absorbs it.
        if (res.Failed?.length)
          log.warn({ source: source.name, failed: res.Failed.map((f) => `${f.Code}: ${f.Message}`) }, 'SQS: some recorded messages were not deleted');
      }),
    );
  };

  const write = async () => {
    for (;;) {
      if (pending.length === 0) {
        if (stop.signal.aborted || receiving === 0) return;
        await new Promise<void>((r) => (wakeWriter = r));
        // A short wait lets a few receives fill the batch: one transaction for many messages.
        if (pending.length < batchSize && !stop.signal.aborted) await new Promise((r) => setTimeout(r, source.config.batchWaitMs));
        continue;
      }
      if (failure) return;
      const batch = pending.slice(0, batchSize);
      pending = pending.slice(batch.length);
      try {
        await sink.record(batch.map((m) => deadLetterOf(m, source)));
      } catch (err) {
        await release(batch);
        const why = err instanceof Error ? err.message : String(err);
        throw new ConnectorError('storage', `Recording ${batch.length} dead letters failed (${why}); they were released back to the queue`);
      }
      // Committed: now they may leave the queue.
      await deleteAll(batch);
      inFlight -= batch.length;
      spaceFreed();
    }
  };

  let receiving = pollers;
  let depthTimer: NodeJS.Timeout | null = null;
  try {
    await depth().catch((err: unknown) => {
      throw sqsError(err, source);
    });
    depthTimer = setInterval(() => void depth().catch(fail), DEPTH_POLL_MS);
    const writer = write().catch(fail);
    await Promise.all(
      Array.from({ length: pollers }, () =>
        poll()
          .catch(fail)
          .finally(() => {
            receiving--;
            nudgeWriter();
          }),
      ),
    );
    // Stopping: what was received stays until the writer has committed and deleted it; on a failure the
    // rest is released at once.
    nudgeWriter();
    await writer;
    if (pending.length) await release(pending.splice(0));
    if (failure) throw failure;
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (depthTimer) clearInterval(depthTimer);
    client.destroy();
  }
}
