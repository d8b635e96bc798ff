// RabbitMQ import: consume the dead-letter queue with manual acks and a prefetch, record bounded
// batches, and acknowledge each batch only after it committed (write, then acknowledge). Until then
// the messages stay unacknowledged on the broker: a crash or a lost connection hands them out again,
// and the unique key (source, message id, generation) absorbs the second write. The prefetch is the
// backpressure: while Postgres is slow no acknowledgement goes out, so the broker sends no more.
import type { Channel, ConsumeMessage } from 'amqplib';
import { log } from '@/lib/log';
import { ConnectorError, type ConnectorSource, type ImportSink } from '../types';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp } from './connection';
import { toDeadLetter } from './message';

/** A batch is written once it holds this many bytes of payload, whatever its count. */
const BATCH_MAX_BYTES = 16 * 1024 * 1024;
/** Unacknowledged payload bytes the broker may push at once: large messages lower the prefetch. */
const INFLIGHT_MAX_BYTES = 64 * 1024 * 1024;
/** How often the queue's depth is read (the source's lag and "last successful poll"). */
const DEPTH_POLL_MS = 5_000;

export async function importFromRabbitmq(source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { url } = source.secret;
  const { queue, errorText } = source.config;
  const batchSize = Math.min(source.config.batchSize, source.config.prefetch);
  const conn = await connectAmqp(url, `triage import ${source.name}`);
  let failure: Error | null = null;
  let settle: (() => void) | null = null;
  const ended = new Promise<void>((resolve) => (settle = resolve));
  const fail = (err: unknown) => {
    failure ??= amqpError(err, url, queue);
    settle?.();
  };
  conn.on('close', (err?: Error) => fail(err ?? new Error('Connection closed by the broker')));
  const onAbort = () => settle?.();
  signal.addEventListener('abort', onAbort, { once: true });

  let ch: Channel | null = null;
  let depthTimer: NodeJS.Timeout | null = null;
  let batch: ConsumeMessage[] = [];
  let batchBytes = 0;
  let batchTimer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  let prefetch = source.config.prefetch;
  let consumerTag: string | null = null;

  try {
    ch = await conn.createChannel();
    ch.on('error', () => {}); // the 'close' below carries it
    ch.on('close', () => fail(new Error('Channel closed by the broker')));
    const q = await ch.checkQueue(queue).catch((err: unknown) => {
      throw amqpError(err, url, queue);
    });
    sink.health({ lag: q.messageCount });
    await ch.prefetch(prefetch);
    const channel = ch;

    // One batch written at a time, in delivery order, so an ack "up to this tag" covers exactly what committed.
    const flush = () => {
      if (batchTimer) clearTimeout(batchTimer);
      batchTimer = null;
      if (batch.length === 0) return;
      const taken = batch;
      const bytes = batchBytes;
      batch = [];
      batchBytes = 0;
      writing = writing.then(async () => {
        if (failure) return; // the channel is gone: unacked messages are already back on the queue
        const deadLetters = taken.map((m) => toDeadLetter(m, { errorText }));
        try {
          await sink.record(deadLetters);
        } catch (err) {
          // Not committed: give them back to the broker now, and let the supervisor back off.
          try {
            channel.nack(taken[taken.length - 1]!, true, true);
          } catch {
            // channel already closed: the broker requeued them itself
          }
          const why = err instanceof Error ? err.message : String(err);
          failure ??= new ConnectorError('storage', `Recording ${taken.length} dead letters failed (${why}); they stay on the queue`);
          settle?.();
          return;
        }
        try {
          channel.ack(taken[taken.length - 1]!, true);
        } catch (err) {
          fail(err); // committed but not acked: redelivered later, absorbed by the unique key
          return;
        }
        // Large messages: fewer of them in flight, so one connector never holds gigabytes.
        const average = bytes / taken.length;
        const fitting = Math.max(1, Math.min(source.config.prefetch, Math.floor(INFLIGHT_MAX_BYTES / Math.max(average, 1))));
        if (fitting !== prefetch) {
          prefetch = fitting;
          await channel.prefetch(prefetch).catch(fail);
        }
      });
    };

    const consumed = await channel.consume(
      queue,
      (msg) => {
        if (msg === null) return fail(new Error(`NOT_FOUND - the broker cancelled the consumer: queue "${queue}" was deleted`));
        batch.push(msg);
        batchBytes += msg.content.length;
        if (batch.length >= batchSize || batchBytes >= BATCH_MAX_BYTES) flush();
        else batchTimer ??= setTimeout(flush, source.config.batchWaitMs);
      },
      { noAck: false },
    );
    consumerTag = consumed.consumerTag;

    const pollDepth = async () => {
      try {
        const d = await channel.checkQueue(queue);
        sink.health({ lag: d.messageCount });
      } catch (err) {
        fail(err);
      }
    };
    depthTimer = setInterval(() => void pollDepth(), DEPTH_POLL_MS);

    await ended;
    if (failure) throw failure;
    // Stopping (pause, removal, shutdown): no new deliveries; the batch being written commits and is
    // acknowledged; what was delivered but not yet written goes back to the queue when the channel closes.
    await channel.cancel(consumerTag).catch(() => undefined);
    await writing;
    if (failure) throw failure;
  } catch (err) {
    throw amqpError(err, url, queue);
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (batchTimer) clearTimeout(batchTimer);
    if (depthTimer) clearInterval(depthTimer);
    await writing.catch(() => undefined);
    await conn.close().catch((err: unknown) => log.debug({ err, source: source.name }, 'AMQP connection already closed'));
  }
}
