// Redis connections to another application's BullMQ, and what their failures mean. A connection
// gives up at once when Redis is away (no offline queue, no reconnect of its own): the supervisor
// owns reconnecting, with backoff, and the redrive engine retries an unavailable destination.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { redactUrl, scrubSecrets } from '../secrets';
import { ConnectorError } from '../types';
import type { BullmqConfig, BullmqSecret } from './config';

const CONNECT_TIMEOUT_MS = 5_000;

/**
 * An ioredis client that is ready, or a ConnectorError saying why not (never the password). Named
 * `triage:<source>:<role>` so that CLIENT LIST on the application's Redis shows who is connected.
 */
export async function openRedis(secret: BullmqSecret, opts: { name: string; blocking?: boolean }): Promise<Redis> {
  const client = new Redis(secret.url, {
    lazyConnect: true,
    connectionName: `triage:${opts.name}`,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    // A blocking client (QueueEvents' XREAD) must not have its command failed by ioredis' retry count.
    maxRetriesPerRequest: opts.blocking ? null : 1,
    retryStrategy: () => null,
  });
  // Surfaced by the commands that fail; but a refused AUTH only comes as an event, the connect
  // itself rejecting with "Connection is closed.": the event says why.
  let refused: Error | null = null;
  client.on('error', (err: Error) => {
    if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(err.message)) refused = err;
  });
  try {
    await client.connect();
    return client;
  } catch (err) {
    client.disconnect();
    throw redisError(refused ?? err, secret);
  }
}

/** A driver error as the user can act on it. */
export function redisError(err: unknown, secret: BullmqSecret): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const text = scrubSecrets(err instanceof Error ? err.message : String(err), secret);
  const where = `Redis at ${redactUrl(secret.url)}`;
  if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(text)) return new ConnectorError('auth', `${where} refused the credentials: ${text}`);
  if (
    /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ECONNRESET|connect|Connection is closed|closed|offline queue|enableOfflineQueue|Stream isn't writeable/i.test(
      text,
    )
  ) {
    return new ConnectorError('unreachable', `${where} is unreachable: ${text}`);
  }
  return new ConnectorError('refused', `${where}: ${text}`);
}

/**
 * An import's connection (also Sidekiq's), named `<source>:import`. Once Redis closes it, `lost()`
 * is the ConnectorError the import stops on, and `onEnd` runs (to wake an idle import); null before.
 */
export async function importConnection(source: { name: string; secret: BullmqSecret }, onEnd?: () => void) {
  const client = await openRedis(source.secret, { name: `${source.name}:import` });
  let lost: ConnectorError | null = null;
  client.on('end', () => {
    lost ??= new ConnectorError('unreachable', `Redis at ${redactUrl(source.secret.url)} closed the connection`);
    onEnd?.();
  });
  return { client, lost: () => lost };
}

/**
 * A redrive destination's connection (also Sidekiq's): opened on the first delivery, named
 * `<source>:redrive`, and `setup` on it; shared by the next deliveries. A failed open is forgotten,
 * so the next delivery tries again; `drop` closes it (`close`), so the next delivery reopens it.
 */
export function redriveConnection<T>(source: { name: string; secret: BullmqSecret }, setup: (client: Redis) => T, close: (opened: T) => Promise<void> | void) {
  let open: Promise<T> | null = null;
  const connect = () =>
    (open ??= openRedis(source.secret, { name: `${source.name}:redrive` })
      .then(setup)
      .catch((err: unknown) => {
        open = null;
        throw err;
      }));
  async function drop(): Promise<void> {
    const o = open;
    open = null;
    const opened = await o?.catch(() => null);
    if (opened) await close(opened);
  }
  return { connect, drop };
}

/** Whether an error means Redis itself is away (as opposed to a job that cannot be handled). */
export function isConnectionError(err: unknown): boolean {
  return err instanceof ConnectorError ? err.kind === 'unreachable' : redisError(err, { url: 'redis://x' }).kind === 'unreachable';
}

/**
 * The application's queue, for BullMQ's own job APIs. skipMetasUpdate: a Queue otherwise writes its
 * library version into the queue's meta hash, which is the application's, not Triage's.
 */
export function appQueue(config: BullmqConfig, client: Redis): Queue {
  const queue = new Queue(config.queue, { connection: client, prefix: config.prefix, skipMetasUpdate: true });
  queue.on('error', () => {}); // surfaced by the calls that fail
  return queue;
}

/** Key names of the application's queue, as BullMQ spells them. */
export function keysOf(config: BullmqConfig) {
  const base = `${config.prefix}:${config.queue}`;
  return { base, meta: `${base}:meta`, failed: `${base}:failed`, job: (id: string) => `${base}:${id}` };
}
