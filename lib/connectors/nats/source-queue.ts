// The source queue of a NATS JetStream source: its stream as its durable consumer sees it. Pending
// (not yet delivered) messages are the depth, delivered and unacknowledged ones in flight; a consumer
// has a client when a push subscriber is bound to it or, for a pull consumer, while pull requests
// wait on it (a client's consume() keeps one open). The oldest waiting message is the first after
// the consumer's ack floor: its stored time gives the age.
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ConnectorSource, SourceQueueState } from '../types';
import type { NatsConfig, NatsSecret } from './config';
import { connectNats, natsError } from './connection';

export async function readNatsSourceQueue(source: ConnectorSource<NatsConfig, NatsSecret>, signal: AbortSignal): Promise<SourceQueueState> {
  const { stream, consumer } = source.config;
  let nc: NatsConnection | null = null;
  const abort = () => void nc?.close().catch(() => undefined);
  signal.addEventListener('abort', abort, { once: true });
  try {
    nc = await connectNats(source.secret, `triage source queue ${source.name}`);
    signal.throwIfAborted();
    const jsm = await jetstreamManager(nc);
    const ci = await jsm.consumers.info(stream, consumer);
    const waiting = ci.num_pending + ci.num_ack_pending;
    let oldestAgeSeconds: number | null = null;
    if (waiting > 0) {
      // Deleted or expired since: the age stays unknown rather than guessed.
      const oldest = await jsm.streams.getMessage(stream, { seq: ci.ack_floor.stream_seq + 1 }).catch(() => null);
      if (oldest) oldestAgeSeconds = Math.max(0, Math.round((Date.now() - oldest.time.getTime()) / 1000));
    }
    return {
      queue: `${stream}/${consumer}`,
      depth: ci.num_pending,
      inFlight: ci.num_ack_pending,
      consumers: ci.push_bound ? 1 : ci.num_waiting,
      oldestAgeSeconds,
    };
  } catch (err) {
    throw natsError(err, source.secret, { stream, consumer });
  } finally {
    signal.removeEventListener('abort', abort);
    await nc?.close().catch(() => undefined);
  }
}
