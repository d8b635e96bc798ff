import { describe, expect, it } from 'vitest';
import { Pacer, rateAt, sendsBy, timeOfSend, type RatePlan } from '@/lib/redrive/rate-plan';
import { evaluateBreaker } from '@/lib/redrive/breaker';
import { signRedrive, verifyRedriveSignature } from '@/lib/redrive/signature';

/** Drive a pacer with a simulated clock: each loop takes `cycleMs`; returns the send times (ms). */
function simulate(plan: RatePlan, ms: number, cycleMs: number, start = { done: 0, at: 0 }): number[] {
  const pacer = new Pacer(plan, start.done, start.at);
  const sends: number[] = [];
  for (let now = start.at; now < start.at + ms; ) {
    const due = pacer.due(now);
    if (due === 0) {
      now = Math.max(now + 1, Math.ceil(pacer.nextAt()));
      continue;
    }
    for (let k = 0; k < due; k++) sends.push(now);
    pacer.record(due);
    now += cycleMs;
  }
  return sends;
}

function windows(sends: number[], from = 0): number[] {
  const out: number[] = [];
  for (const t of sends) out[Math.floor((t - from) / 1000)] = (out[Math.floor((t - from) / 1000)] ?? 0) + 1;
  return [...out].map((n) => n ?? 0);
}

describe('redrive pacing', () => {
  it('allows the first send at once and one per 1/rate after', () => {
    const plan = { ratePerSecond: 10 };
    expect(timeOfSend(plan, 0)).toBe(0);
    expect(timeOfSend(plan, 10)).toBe(1);
    expect(sendsBy(plan, 0.35)).toBeCloseTo(3.5);
    const sends = simulate(plan, 5_000, 1);
    expect(sends).toHaveLength(50);
    expect(sends.slice(0, 3)).toEqual([0, 100, 200]);
  });

  it('holds 1,000/s within 5% per second window even when each loop takes 20 ms', () => {
    const sends = simulate({ ratePerSecond: 1_000 }, 5_000, 20);
    expect(sends.length).toBeGreaterThanOrEqual(4_950);
    for (const n of windows(sends)) {
      expect(n).toBeGreaterThanOrEqual(950);
      expect(n).toBeLessThanOrEqual(1_050);
    }
  });

  it('forgets a long stall instead of bursting to catch up', () => {
    const plan = { ratePerSecond: 100 };
    const pacer = new Pacer(plan, 0, 0);
    expect(pacer.due(0)).toBe(1);
    pacer.record(1);
    // A 3-second stall: at most 50 ms worth comes out at once, then 4% over the rate.
    expect(pacer.due(3_000)).toBe(5);
    pacer.record(5);
    expect(pacer.due(3_000)).toBe(0);
    expect(pacer.nextAt()).toBeCloseTo(3_000 + 1_000 / 104);
    // Only the last second of the stall is remembered: 1 s of 4% extra would take 25 s to recover.
    const sends = simulate(plan, 60_000, 1, { done: 6, at: 3_000 });
    expect(sends.length).toBeLessThan(6_000 + 100);
  });

  it('recovers a short stall at most 4% faster, so a 5-second run still holds the rate', () => {
    const plan = { ratePerSecond: 1_000 };
    const pacer = new Pacer(plan, 0, 0);
    const sends: number[] = [];
    for (let now = 0; now < 5_000; now += now === 1_000 ? 200 : 10) {
      const due = pacer.due(now);
      for (let k = 0; k < due; k++) sends.push(now);
      pacer.record(due);
    }
    expect(sends.length).toBeGreaterThanOrEqual(4_950);
    for (const n of windows(sends)) expect(n).toBeLessThanOrEqual(1_090);
  });

  it('never lets a 1-second window exceed the rate by more than 9%', () => {
    // Loops of irregular length: a slow one (lag), then fast ones (catching up).
    const plan = { ratePerSecond: 500 };
    const pacer = new Pacer(plan, 0, 0);
    const sends: number[] = [];
    let step = 0;
    for (let now = 0; now < 10_000; step++) {
      const due = pacer.due(now);
      for (let k = 0; k < due; k++) sends.push(now);
      pacer.record(due);
      now += step % 7 === 0 ? 75 : 3;
    }
    for (let i = 0, j = 0; i < sends.length; i++) {
      while (sends[j]! <= sends[i]! - 1_000) j++;
      expect(i - j + 1).toBeLessThanOrEqual(545);
    }
  });

  it('resumes from persisted progress without a burst', () => {
    // 400 sent before a crash; the new runner starts at t = 60 s.
    const sends = simulate({ ratePerSecond: 200 }, 3_000, 5, { done: 400, at: 60_000 });
    expect(sends[0]).toBe(60_000);
    for (const n of windows(sends, 60_000)) expect(n).toBeLessThanOrEqual(201);
  });

  it('ramps through the steps, then holds the full rate', () => {
    const plan = { ratePerSecond: 100, ramp: { steps: [1, 10], stepSeconds: 2 } };
    expect(rateAt(plan, 0)).toBe(1);
    expect(rateAt(plan, 2.5)).toBe(10);
    expect(rateAt(plan, 4)).toBe(100);
    expect(sendsBy(plan, 4)).toBe(2 + 20);
    const w = windows(simulate(plan, 6_000, 1));
    expect(w).toEqual([1, 1, 10, 10, 100, 100]);
  });
});

describe('redrive circuit breaker', () => {
  it('trips above 20% dead of the last 50 outcomes', () => {
    const fifty = (dead: number) => Array.from({ length: 50 }, (_, i) => i < dead);
    expect(evaluateBreaker(fifty(10)).tripped).toBe(false);
    const v = evaluateBreaker(fifty(11));
    expect(v).toMatchObject({ tripped: true, dead: 11, considered: 50 });
    expect(v.reason).toMatch(/^Circuit breaker: 11 of the last 50/);
    // Only the last 50 count: old deaths age out.
    expect(evaluateBreaker([...Array(50).fill(false), ...Array(50).fill(true)]).tripped).toBe(false);
  });

  it('judges a small sample as if the missing outcomes were fine: one death does not stop a task', () => {
    expect(evaluateBreaker([true]).tripped).toBe(false);
    expect(evaluateBreaker([true, true]).tripped).toBe(false);
    expect(evaluateBreaker([true, true, true]).tripped).toBe(true);
  });
});

describe('redrive signature', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 and verifies it', () => {
    const body = new Uint8Array([0xff, 0x00, 0x41]);
    const header = signRedrive('secret', body, 1_700_000_000);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyRedriveSignature('secret', body, header, { now: 1_700_000_010 })).toBe(true);
    expect(verifyRedriveSignature('other', body, header, { now: 1_700_000_010 })).toBe(false);
    expect(verifyRedriveSignature('secret', new Uint8Array([1]), header, { now: 1_700_000_010 })).toBe(false);
    // A replay long after is refused.
    expect(verifyRedriveSignature('secret', body, header, { now: 1_700_001_000 })).toBe(false);
  });
});
