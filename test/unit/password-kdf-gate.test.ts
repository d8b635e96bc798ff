// A flood of sign-ins (random e-mails, which no per-e-mail limit stops, and no per-address limit
// without a trusted proxy) must not run a 32 MiB scrypt each at once: the KDF runs a few at a time,
// a bounded number wait, and the rest are refused at once.
import { describe, expect, it } from 'vitest';
import { KdfBusy, kdfLoad, MAX_KDF_AT_ONCE, MAX_KDF_WAITING, verifyPassword } from '@/lib/auth/password';

describe('the KDF gate', () => {
  it('runs at most a few scrypt at once, queues a bounded number, refuses the rest', { timeout: 60_000 }, async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => verifyPassword(`guess-${i}`, undefined)));
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(refused.every((o) => (o as PromiseRejectedResult).reason instanceof KdfBusy)).toBe(true);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(MAX_KDF_AT_ONCE + MAX_KDF_WAITING);
    expect(refused).toHaveLength(60 - MAX_KDF_AT_ONCE - MAX_KDF_WAITING);
    expect(kdfLoad().peak).toBeLessThanOrEqual(MAX_KDF_AT_ONCE);
    expect(kdfLoad()).toMatchObject({ running: 0, waiting: 0 });
    // Once the flood has passed, a sign-in goes through as before.
    expect(await verifyPassword('x', undefined)).toBe(false);
  });
});
