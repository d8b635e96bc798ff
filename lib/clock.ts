// Time is injected (docs/design.md "Non-negotiables" 6): evaluators take a Clock, tests pass a
// manual one.
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to: for tests that walk a dead letter through its deadlines. */
export function manualClock(start: Date): Clock & { set(at: Date): void; advance(ms: number): Date } {
  let t = start.getTime();
  return {
    now: () => new Date(t),
    set: (at) => {
      t = at.getTime();
    },
    advance: (ms) => {
      t += ms;
      return new Date(t);
    },
  };
}

/**
 * A clock set to another time that runs on at real speed from there: the demo history's, so that
 * work taking real time inside one simulated moment (a redrive run) still sees time pass. Never
 * moves back: a jump to a time it has already passed keeps its time.
 */
export function simulatedClock(start: Date): Clock & { jumpTo(at: Date): void } {
  let base = start.getTime();
  let realBase = Date.now();
  const now = () => base + (Date.now() - realBase);
  return {
    now: () => new Date(now()),
    jumpTo: (at) => {
      base = Math.max(at.getTime(), now());
      realBase = Date.now();
    },
  };
}

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Resolves after `ms` (real time), or at once when `signal` aborts or already has. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
