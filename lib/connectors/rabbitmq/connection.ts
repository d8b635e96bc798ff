// Opening an AMQP connection, and saying in a user's words why it failed: amqplib's errors name
// protocol frames, and may carry the URL they were given.
import amqp, { type ChannelModel } from 'amqplib';
import { redactUrl, scrubSecrets } from '../secrets';
import { ConnectorError } from '../types';

const CONNECT_TIMEOUT_MS = 10_000;
/** Seconds between heartbeats: a broker that vanished without closing is noticed within two of them. */
const HEARTBEAT_S = 10;

export function where(url: string): { endpoint: string; vhost: string; user: string } {
  try {
    const u = new URL(url);
    const vhost = u.pathname.length > 1 ? decodeURIComponent(u.pathname.slice(1)) : '/';
    return { endpoint: `${u.hostname}:${u.port || (u.protocol === 'amqps:' ? 5671 : 5672)}`, vhost, user: decodeURIComponent(u.username) || 'guest' };
  } catch {
    return { endpoint: '(invalid URL)', vhost: '/', user: '' };
  }
}

/** An amqplib error as a ConnectorError: refused connection, refused credentials, missing vhost or queue. */
export function amqpError(err: unknown, url: string, queue?: string): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const e = err as { code?: string | number; message?: string };
  const msg = scrubSecrets(String(e?.message ?? err), { url });
  const w = where(url);
  if (
    e?.code === 'ECONNREFUSED' ||
    e?.code === 'EHOSTUNREACH' ||
    e?.code === 'ENOTFOUND' ||
    e?.code === 'ETIMEDOUT' ||
    e?.code === 'ECONNRESET' ||
    /connect ETIMEDOUT|socket.*timeout/i.test(msg)
  ) {
    return new ConnectorError('unreachable', `RabbitMQ at ${w.endpoint} is not reachable (${e.code ?? 'timeout'})`);
  }
  if (/ACCESS[-_]REFUSED|403/.test(msg) && /login|auth|PLAIN|AMQPLAIN|credentials/i.test(msg)) {
    return new ConnectorError('auth', `RabbitMQ at ${w.endpoint} refused the credentials of user "${w.user}"`);
  }
  if (/vhost/i.test(msg) && /not found|NOT_ALLOWED|530/i.test(msg)) {
    return new ConnectorError('not_found', `RabbitMQ at ${w.endpoint} has no virtual host "${w.vhost}" (or user "${w.user}" may not use it)`);
  }
  if (e?.code === 404 || /NOT[-_]FOUND/.test(msg)) {
    return new ConnectorError(
      'not_found',
      queue ? `Queue "${queue}" does not exist on virtual host "${w.vhost}" of ${w.endpoint}` : `RabbitMQ at ${w.endpoint}: ${msg}`,
    );
  }
  if (e?.code === 403 || /ACCESS[-_]REFUSED/.test(msg)) {
    return new ConnectorError('auth', `User "${w.user}" may not do this on virtual host "${w.vhost}": ${msg}`);
  }
  if (/Connection closed|CONNECTION_FORCED|320|channel closed|Socket closed|closed by server|heartbeat/i.test(msg)) {
    return new ConnectorError('unreachable', `The connection to RabbitMQ at ${w.endpoint} was lost: ${msg}`);
  }
  return new ConnectorError('refused', `RabbitMQ at ${w.endpoint}: ${msg}`);
}

/** Connect, named after the source (shown by the management UI and `rabbitmqctl list_connections`). */
export async function connectAmqp(url: string, name: string): Promise<ChannelModel> {
  let target = url;
  try {
    const u = new URL(url);
    if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(HEARTBEAT_S));
    target = u.toString();
  } catch {
    throw new ConnectorError('config', `Not a valid AMQP URL: ${redactUrl(url)}`);
  }
  try {
    const conn = await amqp.connect(target, { timeout: CONNECT_TIMEOUT_MS, clientProperties: { connection_name: name } });
    // Without a listener an 'error' event would throw; the 'close' that follows is what callers watch.
    conn.on('error', () => {});
    return conn;
  } catch (err) {
    throw amqpError(err, url);
  }
}

export const describeEndpoint = (url: string) => {
  const w = where(url);
  return `${w.endpoint} vhost "${w.vhost}"`;
};
