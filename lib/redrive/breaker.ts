// The circuit breaker of a redrive, pure: redriven messages coming back dead means the cause is
// not fixed (or the downstream is still down), and going on would only re-create the outage.

/** How a task paused by the breaker says so (redrive rules disable themselves on it). */
export const BREAKER_REASON_PREFIX = 'Circuit breaker:';
/** How a task paused for its canary's death says so (run-task.ts). */
export const CANARY_REASON_PREFIX = 'Canary:';

export const BREAKER_DEFAULTS = { threshold: 0.2, window: 50, minSamples: 10 } as const;

export interface BreakerVerdict {
  tripped: boolean;
  dead: number;
  considered: number;
  reason?: string;
}

/**
 * `outcomes`: newest first, true = came back dead (or could not be delivered). The last `window`
 * count; a small sample is judged as if the missing ones had succeeded (`minSamples`), so a single
 * early failure does not stop a task, while three deaths out of three do.
 */
export function evaluateBreaker(outcomes: readonly boolean[], opts: { threshold?: number; window?: number; minSamples?: number } = {}): BreakerVerdict {
  const threshold = opts.threshold ?? BREAKER_DEFAULTS.threshold;
  const window = opts.window ?? BREAKER_DEFAULTS.window;
  const minSamples = Math.min(opts.minSamples ?? BREAKER_DEFAULTS.minSamples, window);
  const recent = outcomes.slice(0, window);
  const dead = recent.filter(Boolean).length;
  const tripped = dead / Math.max(recent.length, minSamples) > threshold;
  return {
    tripped,
    dead,
    considered: recent.length,
    reason: tripped
      ? `${BREAKER_REASON_PREFIX} ${dead} of the last ${recent.length} redriven messages came back dead or undelivered (over ${Math.round(threshold * 100)}%). Fix the cause, then resume.`
      : undefined,
  };
}
