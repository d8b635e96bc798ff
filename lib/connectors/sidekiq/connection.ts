// Redis connections to another application's Sidekiq: the same as to another application's BullMQ
// (../bullmq/connection.ts: ready or a clear ConnectorError, no reconnect of their own), plus the
// check that the database and namespace hold a Sidekiq at all.
import type { Redis } from 'ioredis';
import { openRedis, redisError } from '../bullmq/connection';
import { redactUrl } from '../secrets';
import { ConnectorError, type ProbeReport } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';

export { importConnection, openRedis, redisError, isConnectionError, redriveConnection } from '../bullmq/connection';

/**
 * `read` over a connection of its own, named `triage:<name>`: cut when `signal` aborts, closed after;
 * Redis's failures as ConnectorErrors.
 */
export async function withRedis<T>(secret: SidekiqSecret, name: string, signal: AbortSignal | undefined, read: (client: Redis) => Promise<T>): Promise<T> {
  const client = await openRedis(secret, { name });
  const cut = () => client.disconnect();
  signal?.addEventListener('abort', cut, { once: true });
  try {
    return await read(client);
  } catch (err) {
    throw redisError(err, secret);
  } finally {
    signal?.removeEventListener('abort', cut);
    client.disconnect();
  }
}

/** A "test connection" over withRedis: any failure is a report saying it (reachable or not), never a throw. */
export async function probeReport(secret: SidekiqSecret, name: string, probe: (client: Redis) => Promise<ProbeReport>): Promise<ProbeReport> {
  let reachable = false;
  try {
    return await withRedis(secret, name, undefined, (client) => {
      reachable = true;
      return probe(client);
    });
  } catch (err) {
    const error = redisError(err, secret).message;
    return {
      ok: false,
      summary: error,
      facts: err instanceof ConnectorError && err.kind === 'not_found' ? { reachable, exists: false } : { reachable },
      error,
    };
  }
}

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
