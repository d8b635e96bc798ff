// Triage-Signature for HTTP redrive receivers, Stripe-style: `t=<unix seconds>,v1=<hex HMAC-SHA256
// of "<t>.<body>">`. The timestamp in the signed text lets a receiver refuse replays.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { TRIAGE_HEADERS } from '@/lib/queue/envelope';

export function signRedrive(secret: string, body: Uint8Array, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** For receivers (and tests): true when the header matches the body and is within `toleranceSeconds`. */
export function verifyRedriveSignature(
  secret: string,
  body: Uint8Array,
  header: string | null | undefined,
  opts: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = new Map((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false;
  const expected = signRedrive(secret, body, t).slice(`t=${t},v1=`.length);
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(v1, 'hex'));
}

/** The headers every redriven message carries, whatever the destination: consumers deduplicate on them. */
export const REDRIVE_HEADERS = { ...TRIAGE_HEADERS, signature: 'Triage-Signature' } as const;
