// Redis connections to another application's Sidekiq: the same as to another application's BullMQ
// (../bullmq/connection.ts: ready or a clear ConnectorError, no reconnect of their own), plus the
// check that the database and namespace hold a Sidekiq at all.
import type { Redis } from 'ioredis';
import { redactUrl } from '../secrets';
import { ConnectorError } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';

export { openRedis, redisError, isConnectionError } from '../bullmq/connection';

/** Where the source looks, in words: the Redis URL without its password, and the namespace. */
export function whereOf(config: SidekiqConfig, secret: SidekiqSecret): string {
  return `Redis at ${redactUrl(secret.url)}${config.namespace ? ` (namespace "${config.namespace}")` : ''}`;
}

/**
 * A 'not_found' ConnectorError when none of the keys any Sidekiq that ever ran holds is there: a
 * wrong database number or namespace, said as such rather than imported as an empty dead set.
 */
export async function assertSidekiqThere(client: Redis, config: SidekiqConfig, secret: SidekiqSecret): Promise<void> {
  const keys = keysOf(config);
  if ((await client.exists(...keys.marks)) > 0) return;
  throw new ConnectorError(
    'not_found',
    `No Sidekiq found: ${whereOf(config, secret)} has none of Sidekiq's keys (${keys.marks.join(', ')}); check the database number in the URL${config.namespace ? ' and the namespace' : ' and whether the application uses a namespace'}`,
  );
}
