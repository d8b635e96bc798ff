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

export const SECOND = 1_000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
