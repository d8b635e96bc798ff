// The source queue of a RabbitMQ source (the queue its application consumes, named by `sourceQueue`,
// else `targetQueue`), read by a passive declare: ready messages and consumers. AMQP tells neither
// unacknowledged messages nor the oldest message's age; the management API would (messages_unacknowledged,
// head_message_timestamp) but is not read here: both stay unknown.
import type { ChannelModel } from 'amqplib';
import { ConnectorError, type ConnectorSource, type SourceQueueState } from '../types';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp } from './connection';

export async function readRabbitmqSourceQueue(source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>, signal: AbortSignal): Promise<SourceQueueState> {
  const queue = source.config.sourceQueue ?? source.config.targetQueue;
  if (!queue) throw new ConnectorError('config', 'No source queue is set: name the queue your consumer reads in the connection settings ("Source queue")');
  const { url } = source.secret;
  let conn: ChannelModel | null = null;
  const abort = () => void conn?.close().catch(() => undefined);
  signal.addEventListener('abort', abort, { once: true });
  try {
    conn = await connectAmqp(url, `triage source queue ${source.name}`);
    signal.throwIfAborted();
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    const q = await ch.checkQueue(queue);
    return { queue, depth: q.messageCount, inFlight: null, consumers: q.consumerCount, oldestAgeSeconds: null };
  } catch (err) {
    throw amqpError(err, url, queue);
  } finally {
    signal.removeEventListener('abort', abort);
    await conn?.close().catch(() => undefined);
  }
}
