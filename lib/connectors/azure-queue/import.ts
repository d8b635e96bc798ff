// Azure Storage queue import: receive up to 32 messages at a time with a visibility timeout, record
// them, and delete each by its pop receipt only after the write committed (write, then delete). Until
// then a received message is only hidden: a crash lets it reappear after the visibility timeout, with
// the same message id, and the unique key (source, message id, generation) absorbs the second write.
// A batch whose write failed is released at once (visibility 0), never left hidden. A few receives
// run at once and hand their messages to one writer, which records what they hold together in one
// transaction; each receive waits for its messages' commit and deletes them before it receives again,
// so a slow Postgres slows the receives (backpressure). Azure has no long poll: an empty receive waits
// idlePollMs before the next.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DequeuedMessageItem, QueueClient } from '@azure/storage-queue';
import { pg } from '@/lib/db';
import { stallGuard } from '@/lib/db/stall-guard';
import { log } from '@/lib/log';
import { ConnectorError, type ImportSink } from '../types';
import { azureError, queueClient, type AzureQueueSource } from './client';
import { claimLinks } from './links';
import { payloadOf, toDeadLetter } from './message';

/** Azure returns at most 32 messages a receive. */
const RECEIVE_MAX = 32;
/**
 * How often the queue's depth is read (the source's lag and "last successful poll"): every 5 s, or
 * after 10 times as long as the last read took, whichever is later. Azure answers at once; Azurite
 * counts the messages one by one, and a deep queue's count would take the emulator from the receives.
 */
const DEPTH_POLL_MS = 5_000;
const DEPTH_BACKOFF = 10;

interface Handed {
  messages: DequeuedMessageItem[];
  committed: (err?: unknown) => void;
}

/** Give messages back at once: their write failed, they must not stay hidden for the visibility timeout. */
async function release(client: QueueClient, source: AzureQueueSource, messages: DequeuedMessageItem[]): Promise<void> {
  await Promise.all(
    messages.map((m) =>
      client
        .updateMessage(m.messageId, m.popReceipt, undefined, 0)
        .catch((err: unknown) =>
          log.warn(
            { err: azureError(err, source).message, source: source.name },
            'Azure queue: releasing an unwritten message failed; it reappears after the visibility timeout',
          ),
        ),
    ),
  );
}

/** Deletes recorded messages by their pop receipts (exported for its test against Azurite). */
export async function deleteRecorded(client: QueueClient, sourceName: string, messages: DequeuedMessageItem[]): Promise<void> {
  await Promise.all(
    messages.map((m) =>
      client.deleteMessage(m.messageId, m.popReceipt).catch((err: unknown) => {
        // Its visibility ran out: gone (404), or another reader holds it under a new receipt (400
        // PopReceiptMismatch). Either way it is recorded; if it reappears, the unique key absorbs it.
        const { statusCode, code } = err as { statusCode?: number; code?: string };
        if (statusCode === 404 || (statusCode === 400 && code === 'PopReceiptMismatch')) {
          log.warn({ source: sourceName, messageId: m.messageId }, 'Azure queue: a recorded message was not deleted (its pop receipt expired)');
          return;
        }
        throw err;
      }),
    ),
  );
}

export async function importFromAzureQueue(source: AzureQueueSource, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { queue, visibilityTimeoutSeconds, pollers, batchSize, idlePollMs, encoding, errorText } = source.config;
  const client = await queueClient(source);
  // Stopped by the supervisor (pause, shutdown) or by the first failure, which is what the import throws.
  let failure: ConnectorError | null = null;
  const failed = new AbortController();
  const stopped = AbortSignal.any([signal, failed.signal]);
  const fail = (err: unknown) => {
    failure ??= azureError(err, source);
    failed.abort();
  };

  const depth = async () => {
    const props = await client.getProperties();
    sink.health({ lag: props.approximateMessagesCount ?? null });
  };

  let handed: Handed[] = [];
  let receiving = pollers;
  let wakeWriter: (() => void) | null = null;
  const nudgeWriter = () => {
    const w = wakeWriter;
    wakeWriter = null;
    w?.();
  };
  stopped.addEventListener('abort', nudgeWriter);

  /** Records whole receives together, up to batchSize messages (at least one receive). */
  const write = async () => {
    for (;;) {
      if (handed.length === 0) {
        if (receiving === 0) return;
        await new Promise<void>((r) => (wakeWriter = r));
        continue;
      }
      let n = 0;
      let take = 0;
      while (take < handed.length && (take === 0 || n + handed[take]!.messages.length <= batchSize)) n += handed[take++]!.messages.length;
      const group = handed.slice(0, take);
      handed = handed.slice(take);
      const messages = group.flatMap((h) => h.messages);
      try {
        const decoded = messages.map((m) => ({ messageId: m.messageId, payload: payloadOf(m.messageText, encoding) ?? Buffer.alloc(0) }));
        const links = await stallGuard(claimLinks(pg(), source.id, decoded), 'the batch stays on the queue');
        await sink.record(messages.map((m) => toDeadLetter(m, { queue, encoding, errorText, link: links.get(m.messageId) })));
        for (const h of group) h.committed();
      } catch (err) {
        for (const h of group) h.committed(err);
      }
    }
  };

  const poll = async () => {
    while (!stopped.aborted) {
      let messages: DequeuedMessageItem[];
      try {
        const res = await client.receiveMessages({ numberOfMessages: RECEIVE_MAX, visibilityTimeout: visibilityTimeoutSeconds, abortSignal: signal });
        messages = res.receivedMessageItems;
      } catch (err) {
        // Cut short only when the import stops (pause, shutdown): what it may have hidden reappears after the visibility timeout.
        if (stopped.aborted) break;
        throw err;
      }
      if (stopped.aborted) {
        if (messages.length) await release(client, source, messages);
        break;
      }
      if (messages.length === 0) {
        sink.health();
        await sleep(idlePollMs, undefined, { signal: stopped }).catch(() => undefined);
        continue;
      }
      const written = await new Promise<unknown>((committed) => {
        handed.push({ messages, committed });
        nudgeWriter();
      });
      if (written !== undefined) {
        await release(client, source, messages);
        const why = written instanceof Error ? written.message : String(written);
        throw new ConnectorError('storage', `Recording ${messages.length} dead letters failed (${why}); they were released back to the queue`);
      }
      // Committed: now they may leave the queue.
      await deleteRecorded(client, source.name, messages);
    }
  };

  let depthTimer: NodeJS.Timeout | null = null;
  const scheduleDepth = (lastMs: number) => {
    depthTimer = setTimeout(
      () => {
        const started = performance.now();
        void depth().then(() => {
          if (!stopped.aborted) scheduleDepth(performance.now() - started);
        }, fail);
      },
      Math.max(DEPTH_POLL_MS, lastMs * DEPTH_BACKOFF),
    );
  };
  try {
    const started = performance.now();
    await depth().catch((err: unknown) => {
      throw azureError(err, source);
    });
    scheduleDepth(performance.now() - started);
    const writer = write().catch(fail);
    const receivers = Array.from({ length: pollers }, async () => {
      try {
        await poll();
      } catch (err) {
        fail(err);
      } finally {
        receiving--;
        nudgeWriter();
      }
    });
    await Promise.all(receivers);
    await writer;
    if (failure) throw failure;
  } finally {
    if (depthTimer) clearTimeout(depthTimer);
  }
}
