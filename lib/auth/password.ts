// Passwords are hashed with scrypt (memory-hard KDF, in Node's crypto), never stored in clear.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 1 << 15;
const r = 8;
const p = 1;
const KEYLEN = 32;

/**
 * The KDF is memory-hard by design (32 MiB, ~100 ms each), and a flood of sign-ins with made-up
 * e-mails passes every per-e-mail limit (and, without TRUST_PROXY, there is no per-address one):
 * at most MAX_KDF_AT_ONCE run at a time, MAX_KDF_WAITING wait their turn, and beyond that an
 * attempt is refused at once (KdfBusy, a 429 to the client) instead of queueing without bound.
 */
export const MAX_KDF_AT_ONCE = 4;
export const MAX_KDF_WAITING = 16;
export class KdfBusy extends Error {
  constructor() {
    super('Too many sign-ins at once: try again in a moment');
    this.name = 'KdfBusy';
  }
}
let running = 0;
let peak = 0;
const waiting: (() => void)[] = [];

/** What the gate holds now, and the most it ran at once. */
export const kdfLoad = () => ({ running, waiting: waiting.length, peak });

async function gated<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_KDF_AT_ONCE) {
    if (waiting.length >= MAX_KDF_WAITING) throw new KdfBusy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  peak = Math.max(peak, running);
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) =>
    scryptCb(password.normalize('NFKC'), salt, KEYLEN, { ...opts, maxmem: 128 * N * r * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  // Hash even when there is no user, so timing does not tell which e-mails exist.
  const parts = (stored ?? DUMMY).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, rr, pp, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  // Gated: a sign-in is what a stranger can send (hashing, by an admin or the seed, is not).
  const key = await gated(() => scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(rr), p: Number(pp) }));
  return stored != null && key.length === expected.length && timingSafeEqual(key, expected);
}

const DUMMY = `scrypt$${N}$${r}$${p}$${'A'.repeat(22)}$${'A'.repeat(43)}`;
