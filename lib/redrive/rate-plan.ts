// The pace of a redrive, pure (time passed in: plan times in seconds, wall clock in ms). A redrive at full speed into a
// just-recovered downstream re-creates the outage (reference/seeds/004, §8), so every task has a
// rate, optionally reached through ramp steps, and a restart never sends the missed time as a burst.

export const RAMP_STEP_SECONDS = 10;
/** The most sent at once, in seconds' worth of sends at the current rate. */
export const BURST_SECONDS = 0.05;
/** A runner that fell behind (a slow query, a GC pause) catches up at most this much faster… */
export const CATCH_UP_SPEED = 1.04;
/** …and only for a lag up to this long; a longer stall is forgotten, never sent as a burst. */
export const LAG_MEMORY_SECONDS = 1;

export interface RatePlan {
  ratePerSecond: number;
  /** Lower rates held for `stepSeconds` each before the full rate, e.g. [1, 10, 100]. */
  ramp?: { steps: number[]; stepSeconds: number } | null;
}

interface Phase {
  rate: number;
  start: number; // virtual seconds since the task began sending
  duration: number;
  sendsBefore: number;
}

function phases(plan: RatePlan): Phase[] {
  const out: Phase[] = [];
  let start = 0;
  let sends = 0;
  for (const step of plan.ramp?.steps ?? []) {
    const rate = Math.min(step, plan.ratePerSecond);
    const duration = plan.ramp!.stepSeconds;
    out.push({ rate, start, duration, sendsBefore: sends });
    start += duration;
    sends += rate * duration;
  }
  out.push({ rate: plan.ratePerSecond, start, duration: Infinity, sendsBefore: sends });
  return out;
}

/** Continuous number of sends the plan allows by virtual time `t`. */
export function sendsBy(plan: RatePlan, t: number): number {
  if (t <= 0) return 0;
  let n = 0;
  for (const p of phases(plan)) {
    if (t <= p.start) break;
    n = p.sendsBefore + p.rate * Math.min(t - p.start, p.duration);
  }
  return n;
}

/** Virtual time at which send number `n` (0-based) is allowed: the inverse of sendsBy. */
export function timeOfSend(plan: RatePlan, n: number): number {
  if (n <= 0) return 0;
  const ps = phases(plan);
  for (const p of ps) {
    if (n <= p.sendsBefore + p.rate * p.duration) return p.start + (n - p.sendsBefore) / p.rate;
  }
  const last = ps[ps.length - 1]!;
  return last.start + (n - last.sendsBefore) / last.rate;
}

/** The rate in force at virtual time `t`. */
export function rateAt(plan: RatePlan, t: number): number {
  let rate = plan.ratePerSecond;
  for (const p of phases(plan)) if (t >= p.start) rate = p.rate;
  return rate;
}

// A rounding guard: 0.1 * 30 must allow send 3, not 2.
const EPS = 1e-9;

/**
 * Paces one run of a task; `now` is a wall clock in ms. Two limits together:
 * - the schedule: send n goes at the task's start + timeOfSend(n), anchored at the sends already
 *   done (persisted in Postgres), so a restart or a resume continues from there; a lag over
 *   LAG_MEMORY_SECONDS is dropped rather than caught up;
 * - a token bucket filled at CATCH_UP_SPEED × the rate, holding BURST_SECONDS' worth: catching up
 *   on a short lag never runs faster than that, so no 1-second window carries more than
 *   (CATCH_UP_SPEED + BURST_SECONDS) × the rate, i.e. 9% over.
 */
export class Pacer {
  private virtualAnchor: number;
  private wallAnchor: number;
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly plan: RatePlan,
    private done: number,
    now: number,
  ) {
    this.virtualAnchor = timeOfSend(plan, done);
    this.wallAnchor = now;
    this.refilledAt = now;
    this.tokens = this.burst(this.virtualAnchor);
  }

  private virtualNow(now: number): number {
    return this.virtualAnchor + (now - this.wallAnchor) / 1000;
  }

  private burst(v: number): number {
    return Math.max(1, Math.ceil(rateAt(this.plan, v) * BURST_SECONDS));
  }

  /** Sends allowed right now. */
  due(now: number): number {
    const v = this.virtualNow(now);
    const rate = rateAt(this.plan, v);
    let behind = Math.floor(sendsBy(this.plan, v) + EPS) + 1 - this.done;
    const memory = Math.max(1, Math.ceil(rate * LAG_MEMORY_SECONDS));
    if (behind > memory) {
      this.virtualAnchor = timeOfSend(this.plan, this.done + memory - 1);
      this.wallAnchor = now;
      behind = memory;
    }
    this.tokens = Math.min(this.burst(v), this.tokens + ((now - this.refilledAt) / 1000) * rate * CATCH_UP_SPEED);
    this.refilledAt = now;
    return Math.max(0, Math.min(behind, Math.floor(this.tokens + EPS)));
  }

  record(sends: number): void {
    this.done += sends;
    this.tokens -= sends;
  }

  /** Wall time (ms, same clock as `now`) at which the next `count` sends are allowed. */
  nextAt(count = 1): number {
    const scheduled = this.wallAnchor + (timeOfSend(this.plan, this.done + count - 1) - this.virtualAnchor) * 1000;
    const rate = rateAt(this.plan, this.virtualNow(this.refilledAt));
    const refilled = this.refilledAt + (Math.max(0, count - this.tokens) / (rate * CATCH_UP_SPEED)) * 1000;
    return Math.max(scheduled, refilled);
  }

  /** The most the bucket holds now: what one batch can be. */
  burstAt(now: number): number {
    return this.burst(this.virtualNow(now));
  }

  /**
   * The fewest sends worth a batch: half the burst. At 1,000/s a batch per message would be a
   * query per millisecond; waiting for the whole burst would leave no room for a late wake-up
   * before the bucket is full and the time is lost.
   */
  leastBatch(now: number): number {
    return Math.max(1, Math.floor(this.burstAt(now) / 2));
  }

  get sends(): number {
    return this.done;
  }
}
