// RabbitMQ import: consume the dead-letter queue with manual acks and a prefetch, record bounded
// batches, and acknowledge each batch only after it committed (write, then acknowledge). Until then
// the messages stay unacknowledged on the broker: a crash or a lost connection hands them out again,
// and the unique key (source, message id, generation) absorbs the second write. The prefetch is the
// backpressure: while Postgres is slow no acknowledgement goes out, so the broker sends no more.
import type { Channel, ConsumeMessage } from 'amqplib';
import type { NewDeadLetter } from '@/lib/model/dead-letter';
import { log } from '@/lib/log';
import type { ErrorTextMapping } from '../error-text';
import { ConnectorError, type ConnectorSource, type ImportSink } from '../types';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp } from './connection';
import { derivedMessageId, toDeadLetter } from './message';

/** A batch is written once it holds this many bytes of payload, whatever its count. */
const BATCH_MAX_BYTES = 16 * 1024 * 1024;
/** Unacknowledged payload bytes the broker may push at once: large messages lower the prefetch. */
const INFLIGHT_MAX_BYTES = 64 * 1024 * 1024;
/** How often the queue's depth is read (the source's lag and "last successful poll"). */
const DEPTH_POLL_MS = 5_000;
/**
 * Batches being written at once: three keep the process busy while Postgres commits (two left it idle
 * about a fifth of the time). In the connectors bench, with the prefetch raised from 3,000 to 6,000 at
 * the same time: 0.37× → 0.45× the plain consumer (the rest of the way to 0.56× came from longer rounds
 * and the worker's larger semi-space, scripts/lib/worker-flags.mjs).
 */
const MAX_WRITES = 3;

interface Batch {
  messages: ConsumeMessage[];
  deadLetters: NewDeadLetter[];
  bytes: number;
}

/** The dead letter of a message; one whose headers cannot be read is still recorded, never a poison for the import. */
function deadLetterOf(msg: ConsumeMessage, errorText: ErrorTextMapping | undefined): NewDeadLetter {
  try {
    return toDeadLetter(msg, { errorText });
  } catch (err) {
    return {
      messageId: typeof msg.properties.messageId === 'string' && msg.properties.messageId ? msg.properties.messageId : derivedMessageId(msg.content, null),
      payload: msg.content,
      reason: 'Rejected',
      errorType: 'TriageImportError',
      errorMessage: `Triage could not read this message's headers: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

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
  // Delivered, mapped, not yet being written, in delivery order.
  const pending: Batch = { messages: [], deadLetters: [], bytes: 0 };
  let batchTimer: NodeJS.Timeout | null = null;
  /** The oldest pending message has waited batchWaitMs: the next free write takes what is pending, whatever its size. */
  let due = false;
  let writes = 0;
  let acking: Promise<void> = Promise.resolve();
  let stopping = false;
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

    // Up to MAX_WRITES batches are written at once, so mapping and fingerprinting the next one overlaps Postgres's
    // work on the last; acknowledgements go out strictly in delivery order, each "up to this tag" only
    // once every batch before it committed. While every write is busy, deliveries keep joining the pending
    // batch instead of queueing up as small ones (a batch's fixed cost is most of a small write): the
    // slower Postgres is, the larger the batches, up to batchSize (group commit).
    const full = () => pending.messages.length >= batchSize || pending.bytes >= BATCH_MAX_BYTES;
    const pump = () => {
      while (writes < MAX_WRITES && pending.messages.length > 0 && (due || full()) && !failure && !stopping) {
        let n = 0;
        let bytes = 0;
        while (n < pending.messages.length && n < batchSize && bytes < BATCH_MAX_BYTES) bytes += pending.messages[n++]!.content.length;
        const b: Batch = { messages: pending.messages.splice(0, n), deadLetters: pending.deadLetters.splice(0, n), bytes };
        pending.bytes -= bytes;
        if (pending.messages.length === 0) {
          due = false;
          if (batchTimer) clearTimeout(batchTimer);
          batchTimer = null;
        }
        writes++;
        const recorded = sink.record(b.deadLetters);
        void recorded
          .catch(() => undefined)
          .finally(() => {
            writes--;
            pump();
          });
        acking = acking.then(() => settleBatch(b, recorded));
      }
    };

    const settleBatch = async (b: Batch, recorded: Promise<unknown>) => {
      const last = b.messages[b.messages.length - 1]!;
      try {
        await recorded;
      } catch (err) {
        if (failure) return;
        // Not committed: give them back to the broker now, and let the supervisor back off.
        try {
          channel.nack(last, true, true);
        } catch {
          // channel already closed: the broker requeued them itself
        }
        const why = err instanceof Error ? err.message : String(err);
        failure = new ConnectorError('storage', `Recording ${b.messages.length} dead letters failed (${why}); they stay on the queue`);
        settle?.();
        return;
      }
      if (failure) return; // committed, never acknowledged: redelivered later, absorbed by the unique key
      try {
        channel.ack(last, true);
      } catch (err) {
        fail(err);
        return;
      }
      // Large messages: fewer of them in flight, so one connector never holds gigabytes.
      const average = b.bytes / b.messages.length;
      const fitting = Math.max(1, Math.min(source.config.prefetch, Math.floor(INFLIGHT_MAX_BYTES / Math.max(average, 1))));
      if (fitting !== prefetch) {
        prefetch = fitting;
        await channel.prefetch(prefetch).catch(fail);
      }
    };

    const consumed = await channel.consume(
      queue,
      (msg) => {
        if (msg === null) return fail(new Error(`NOT_FOUND - the broker cancelled the consumer: queue "${queue}" was deleted`));
        pending.messages.push(msg);
        pending.deadLetters.push(deadLetterOf(msg, errorText));
        pending.bytes += msg.content.length;
        batchTimer ??= setTimeout(() => {
          batchTimer = null;
          due = true;
          pump();
        }, source.config.batchWaitMs);
        if (full()) pump();
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
    // Stopping (pause, removal, shutdown): no new deliveries; the batches being written commit and are
    // acknowledged; what was delivered but not yet written goes back to the queue when the channel closes.
    stopping = true;
    await channel.cancel(consumerTag).catch(() => undefined);
    await acking;
    if (failure) throw failure;
  } catch (err) {
    throw amqpError(err, url, queue);
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (batchTimer) clearTimeout(batchTimer);
    if (depthTimer) clearInterval(depthTimer);
    stopping = true;
    await acking.catch(() => undefined);
    // The channel first: its close handshake follows the acks on the same channel, so the broker has
    // them before the connection goes (a connection close can overtake another channel's frames).
    await ch?.close().catch(() => undefined);
    await conn.close().catch((err: unknown) => log.debug({ err, source: source.name }, 'AMQP connection already closed'));
  }
}
