// Connector credentials at rest: AES-256-GCM with CONNECTOR_SECRET_KEY (lib/env.ts connectorSecretKey). A
// source's secrets (the URL with its password, access keys…) are one small JSON object, encrypted
// whole into sources.connection_secret; they are decrypted only where a connection is opened, and
// never returned by an API or page ("set" is all anyone sees) nor logged (redactUrl / scrubSecrets).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { connectorSecretKey } from '@/lib/env';

/** A connector's secret fields, e.g. { url: 'amqp://user:pass@host/vhost' }. */
export type ConnectorSecret = Record<string, string>;

// Layout: version (1 byte) | IV (12) | GCM tag (16) | ciphertext. The version leaves room for rotation.
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

let cachedKey: { from: string; key: Buffer } | undefined;

function key(): Buffer {
  const from = connectorSecretKey();
  // Any string of 32+ characters (a generated one is 256 random bits); SHA-256 makes it the AES key.
  if (cachedKey?.from !== from) cachedKey = { from, key: createHash('sha256').update(from, 'utf8').digest() };
  return cachedKey.key;
}

export function encryptSecret(secret: ConnectorSecret): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key(), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(secret), 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

export function decryptSecret(sealed: Uint8Array): ConnectorSecret {
  const buf = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (buf.length < 1 + IV_BYTES + TAG_BYTES || buf[0] !== VERSION) throw new Error('connector secret: unknown format');
  const iv = buf.subarray(1, 1 + IV_BYTES);
  const tag = buf.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key(), iv);
  decipher.setAuthTag(tag);
  try {
    const text = Buffer.concat([decipher.update(buf.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    return JSON.parse(text) as ConnectorSecret;
  } catch {
    // Never the cause's text: it says nothing useful and must not echo bytes of the secret.
    throw new Error('connector secret: cannot be decrypted (was CONNECTOR_SECRET_KEY changed?)');
  }
}

const SECRET_PARAM = /pass|secret|token|key|auth|credential|signature/i;

/**
 * A URL fit for audit events, logs and pages: the password (and query parameters that look like
 * credentials) replaced by "***"; the user name stays, it tells which account is used.
 */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(invalid URL)';
  }
  if (u.password) u.password = '***';
  for (const name of [...u.searchParams.keys()]) if (SECRET_PARAM.test(name)) u.searchParams.set(name, '***');
  return u.toString();
}

/**
 * A driver's error text with every secret value (and each URL's password on its own) cut out: client
 * libraries sometimes echo the URL they were given.
 */
export function scrubSecrets(text: string, secret: ConnectorSecret | null | undefined): string {
  if (!secret) return text;
  let out = text;
  for (const value of Object.values(secret)) {
    if (typeof value !== 'string' || value.length < 4) continue;
    out = out.replaceAll(value, /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? redactUrl(value) : '***');
    try {
      const password = decodeURIComponent(new URL(value).password);
      if (password.length >= 4) out = out.replaceAll(password, '***');
    } catch {
      // not a URL: the whole value was cut above
    }
  }
  return out;
}
