// The source queue of a BullMQ source: the application's queue itself (its failed set is what Triage
// imports). Waiting jobs (wait, prioritized; a paused queue keeps its jobs in wait) are the depth, active ones in flight, workers
// come from CLIENT LIST (BullMQ names its workers' connections after the queue; a Redis user denied
// CLIENT LIST leaves them unknown). Workers take from the tail of the wait list, so the job there is
// the oldest waiting: its timestamp gives the age.
import type { ConnectorSource, SourceQueueState } from '../types';
import type { BullmqConfig, BullmqSecret } from './config';
import { appQueue, keysOf, openRedis, redisError } from './connection';

export async function readBullmqSourceQueue(source: ConnectorSource<BullmqConfig, BullmqSecret>, signal: AbortSignal): Promise<SourceQueueState> {
  const { config, secret } = source;
  const keys = keysOf(config);
  const client = await openRedis(secret, { name: `${source.name}:source-queue` });
  const abort = () => client.disconnect();
  signal.addEventListener('abort', abort, { once: true });
  const queue = appQueue(config, client);
  try {
    const counts = await queue.getJobCounts('waiting', 'prioritized', 'active');
    const workers = await queue.getWorkersCount().catch(() => null);
    const id = await client.lindex(`${keys.base}:wait`, -1);
    const at = id ? Number(await client.hget(keys.job(id), 'timestamp')) : NaN;
    const oldestAgeSeconds = Number.isFinite(at) && at > 0 ? Math.max(0, Math.round((Date.now() - at) / 1000)) : null;
    return {
      queue: keys.base,
      depth: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      inFlight: counts.active ?? 0,
      consumers: workers,
      oldestAgeSeconds,
    };
  } catch (err) {
    throw redisError(err, secret);
  } finally {
    signal.removeEventListener('abort', abort);
    await queue.close().catch(() => undefined);
    client.disconnect();
  }
}
