// The source queue of a Sidekiq source: the queue its dead jobs came from ("queue:<name>", the
// source's sourceQueue, else the newest dead job's queue, else "default"). Depth is the list's
// length; the oldest waiting job is at its tail (Sidekiq LPUSHes and its fetch BRPOPs), so its
// enqueued_at gives the age, as Sidekiq's own Queue#latency does. Consumers are the Sidekiq
// processes whose heartbeat lists the queue; jobs in flight are not kept per queue.
import type { ConnectorSource, SourceQueueState } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';
import { withRedis } from './connection';

export function readSidekiqSourceQueue(source: ConnectorSource<SidekiqConfig, SidekiqSecret>, signal: AbortSignal): Promise<SourceQueueState> {
  const { config, secret } = source;
  const keys = keysOf(config);
  return withRedis(secret, `${source.name}:source-queue`, signal, async (client) => {
    let name = config.sourceQueue ?? null;
    if (!name) {
      const [newest] = await client.zrevrange(keys.dead, 0, 0);
      try {
        const q = newest ? (JSON.parse(newest) as { queue?: unknown }).queue : undefined;
        name = typeof q === 'string' && q ? q : null;
      } catch {
        // not a job
      }
    }
    name ??= 'default';
    const key = keys.queue(name);
    const [depth, tail, identities] = await Promise.all([client.llen(key), client.lindex(key, -1), client.smembers(keys.processes)]);
    let at = NaN;
    try {
      at = tail ? Number((JSON.parse(tail) as { enqueued_at?: unknown }).enqueued_at) : NaN;
    } catch {
      // not a job
    }
    const ms = at > 1e11 ? at : at * 1000;
    const oldestAgeSeconds = Number.isFinite(ms) && ms > 0 ? Math.max(0, Math.round((Date.now() - ms) / 1000)) : null;
    let consumers = 0;
    const infos = identities.length
      ? await client.pipeline(identities.map((id) => ['hget', `${config.namespace ? `${config.namespace}:` : ''}${id}`, 'info'])).exec()
      : [];
    for (const [err, info] of infos ?? []) {
      try {
        const queues = !err && typeof info === 'string' ? (JSON.parse(info) as { queues?: unknown }).queues : null;
        if (Array.isArray(queues) && queues.includes(name)) consumers++;
      } catch {
        // a heartbeat Triage cannot read
      }
    }
    return { queue: key, depth, inFlight: null, consumers, oldestAgeSeconds };
  });
}
