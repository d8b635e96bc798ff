// Opening a NATS connection, and saying in a user's words why something failed: the client's errors
// are terse ("connection refused", "jetstream is not enabled" for a subject no stream takes).
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { redactUrl, scrubSecrets } from '../secrets';
import { ConnectorError } from '../types';
import type { NatsSecret } from './config';

const CONNECT_TIMEOUT_MS = 10_000;
/** A server that vanished without closing the socket is noticed within two pings. */
const PING_INTERVAL_MS = 10_000;

/** host:port of the URL, for messages (never its credentials). */
export function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 4222}`;
  } catch {
    return '(invalid URL)';
  }
}

/** Who connects, for messages: the user, "a token", or nobody. */
function identity(secret: NatsSecret): string {
  const auth = credentialsOf(secret);
  if (auth.user) return `user "${auth.user}"`;
  return auth.token ? 'the token' : 'no credentials';
}

/** Credentials beside the URL win over those inside it; a lone URL user name is a token (nats://token@host). */
function credentialsOf(secret: NatsSecret): { user?: string; pass?: string; token?: string } {
  if (secret.token) return { token: secret.token };
  if (secret.user) return { user: secret.user, pass: secret.pass };
  try {
    const u = new URL(secret.url);
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    if (user && pass) return { user, pass };
    if (user) return { token: user };
  } catch {
    // reported by connectNats
  }
  return {};
}

const nameOf = (err: unknown) => (err as Error)?.name ?? (err as object)?.constructor?.name ?? '';
const messageOf = (err: unknown) => String((err as Error)?.message ?? err);

/** Anything the NATS client threw, as a ConnectorError whose text names the stream or consumer concerned. */
export function natsError(err: unknown, secret: NatsSecret, where: { stream?: string; consumer?: string } = {}): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const endpoint = endpointOf(secret.url);
  const name = nameOf(err);
  const msg = scrubSecrets(messageOf(err), secret);
  const causeName = nameOf((err as Error & { cause?: unknown })?.cause);
  if (name === 'AuthorizationError' || /authorization violation|authentication/i.test(msg)) {
    return new ConnectorError('auth', `NATS at ${endpoint} refused the credentials (${identity(secret)})`);
  }
  if (name === 'StreamNotFoundError' || /stream not found/i.test(msg)) {
    return new ConnectorError('not_found', `Stream "${where.stream ?? '?'}" does not exist on NATS at ${endpoint}`);
  }
  if (name === 'ConsumerNotFoundError' || /consumer not found/i.test(msg)) {
    return new ConnectorError('not_found', `Consumer "${where.consumer ?? '?'}" does not exist on stream "${where.stream ?? '?'}" at NATS ${endpoint}`);
  }
  if (name === 'JetStreamNotEnabled' || name === 'JetStreamNotEnabledForAccount' || /jetstream (is )?not enabled/i.test(msg)) {
    return new ConnectorError('config', `JetStream is not enabled on NATS at ${endpoint} (start nats-server with -js)`);
  }
  if (
    name === 'ConnectionError' ||
    name === 'ClosedConnectionError' ||
    name === 'TimeoutError' ||
    causeName === 'TimeoutError' ||
    /connection (refused|closed)|timeout|ECONN|EHOSTUNREACH|ENOTFOUND|disconnect/i.test(msg)
  ) {
    return new ConnectorError('unreachable', `NATS at ${endpoint} is not reachable (${msg})`);
  }
  return new ConnectorError('refused', `NATS at ${endpoint}: ${msg}`);
}

/** Connect without the client's own reconnects: a lost connection ends the import, and the supervisor backs off. */
export async function connectNats(secret: NatsSecret, name: string): Promise<NatsConnection> {
  let server: string;
  try {
    const u = new URL(secret.url);
    if (!u.hostname) throw new Error('no host');
    server = `${u.protocol === 'tls:' ? 'tls://' : ''}${u.hostname}:${u.port || 4222}`;
  } catch {
    throw new ConnectorError('config', `Not a valid NATS URL: ${redactUrl(secret.url)}`);
  }
  try {
    return await connect({
      servers: server,
      name,
      ...credentialsOf(secret),
      reconnect: false,
      timeout: CONNECT_TIMEOUT_MS,
      pingInterval: PING_INTERVAL_MS,
      maxPingOut: 2,
    });
  } catch (err) {
    throw natsError(err, secret);
  }
}
