// Retry delays. Exponential so a struggling downstream gets room to recover; capped at 2^10 × base
// so a message is never hidden for absurd lengths; full jitter so consumers that failed together
// (an outage) do not retry together and knock the downstream over again (seed 000, 003 "Next Step").

export const MAX_BACKOFF_EXPONENT = 10;

/** Backoff before the next delivery after `receives` failed deliveries: base << min(receives-1, 10). */
export function backoffDelay(receives: number, backoffMs: number): number {
  const exponent = Math.min(Math.max(receives - 1, 0), MAX_BACKOFF_EXPONENT);
  // Multiplication, not <<: JS shifts are 32-bit and would overflow for bases above ~35 minutes.
  return backoffMs * 2 ** exponent;
}

/** Full jitter: a whole number of ms drawn uniformly from [0, cap]; `random` returns [0, 1). */
export function fullJitter(cap: number, random: () => number): number {
  return Math.floor(random() * (cap + 1));
}

/** mulberry32: a tiny seeded PRNG so jittered runs replay exactly in tests and simulations. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
