// Redis connections. BullMQ wants separate producer and worker connections (workers block), and
// maxRetriesPerRequest null on the worker side so a blocked call is not failed by ioredis.
// With REDIS_CLUSTER_NODES, the same connections are ioredis Cluster clients (BullMQ takes either).
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { env } from './env';

/** One Redis or a Redis Cluster: the commands Triage uses are the same on both. */
export type RedisClient = Redis | Cluster;

export function redisConnection(kind: 'producer' | 'worker' | 'client', extra: RedisOptions = {}): RedisClient {
  // Reconnect forever with a capped delay: after a Redis restart the workers go on by themselves.
  const retry = (times: number) => Math.min(times * 200, 2_000);
  const options: RedisOptions = {
    maxRetriesPerRequest: kind === 'worker' ? null : 3,
    enableOfflineQueue: kind !== 'client',
    connectTimeout: 5_000,
    retryStrategy: retry,
    lazyConnect: false,
    ...extra,
  };
  const nodes = env().REDIS_CLUSTER_NODES;
  if (nodes.length === 0) return new Redis(env().REDIS_URL, options);
  return new Cluster(
    nodes.map((n) => ({ host: n.slice(0, n.lastIndexOf(':')), port: Number(n.slice(n.lastIndexOf(':') + 1)) })),
    { redisOptions: options, clusterRetryStrategy: retry, enableOfflineQueue: options.enableOfflineQueue, lazyConnect: options.lazyConnect },
  );
}

const g = globalThis as unknown as { __triageRedis?: RedisClient };

/** A shared short-command client (health, rate limits); not for BullMQ workers. */
export function redis(): RedisClient {
  g.__triageRedis ??= redisConnection('producer');
  return g.__triageRedis;
}

/** Close the shared client, for a process that ends by itself (a script, a bench child). */
export async function closeRedis(): Promise<void> {
  const client = g.__triageRedis;
  g.__triageRedis = undefined;
  await client?.quit().catch(() => {});
}
