// Redis connections. BullMQ wants separate producer and worker connections (workers block), and
// maxRetriesPerRequest null on the worker side so a blocked call is not failed by ioredis.
import { Redis, type RedisOptions } from 'ioredis';
import { env } from './env';

export function redisConnection(kind: 'producer' | 'worker' | 'client', extra: RedisOptions = {}): Redis {
  return new Redis(env().REDIS_URL, {
    maxRetriesPerRequest: kind === 'worker' ? null : 3,
    enableOfflineQueue: kind !== 'client',
    connectTimeout: 5_000,
    // Reconnect forever with a capped delay: after a Redis restart the workers go on by themselves.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
    ...extra,
  });
}

const g = globalThis as unknown as { __triageRedis?: Redis };

/** A shared short-command client (health, rate limits); not for BullMQ workers. */
export function redis(): Redis {
  g.__triageRedis ??= redisConnection('producer');
  return g.__triageRedis;
}
