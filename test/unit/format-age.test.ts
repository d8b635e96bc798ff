// Ages and durations read the same on every page, in the chart and in notifications: whole units,
// minutes under an hour and seconds under a minute, never a fraction of an hour ("0.25 h").
import { describe, expect, it } from 'vitest';
import { age } from '@/components/format';
import { ageTicks } from '@/components/charts/chart-format';
import { formatDuration } from '@/lib/duration';

const MIN = 60;
const H = 3600;
const D = 86_400;
const EDGES: [number, string][] = [
  [0, '0 s'],
  [59, '59 s'],
  [60, '1 min'],
  [15 * MIN, '15 min'],
  [59 * MIN, '59 min'],
  [59 * MIN + 59, '59 min'],
  [60 * MIN, '1 h'],
  [H + 15 * MIN, '1 h 15 min'],
  [23 * H, '23 h'],
  [23 * H + 59 * MIN, '23 h 59 min'],
  [D, '1 d'],
  [D + 5 * H, '1 d 5 h'],
];

describe('an age', () => {
  it.each(EDGES)('of %i s reads %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it.each(EDGES)('of a dead letter %i s old reads %s, as every other age', (seconds, text) => {
    const now = Date.parse('2026-12-05T12:00:00Z');
    expect(age(new Date(now - seconds * 1000).toISOString(), now)).toBe(text);
  });

  it('rounds to the second, so 59.6 s is a minute, and never goes below zero', () => {
    expect(formatDuration(59.6)).toBe('1 min');
    expect(formatDuration(-5)).toBe('0 s');
  });
});

describe("the source chart's age axis", () => {
  it('ticks at whole units from zero past the oldest age', () => {
    expect(ageTicks(15 * MIN)).toEqual([0, 5 * MIN, 10 * MIN, 15 * MIN]);
    expect(ageTicks(15 * MIN).map(formatDuration)).toEqual(['0 s', '5 min', '10 min', '15 min']);
    expect(ageTicks(59)).toEqual([0, 15, 30, 45, 60]);
    expect(ageTicks(3 * H).map(formatDuration)).toEqual(['0 s', '1 h', '2 h', '3 h']);
    expect(ageTicks(20 * D).map(formatDuration)).toEqual(['0 s', '7 d', '14 d', '21 d']);
    for (const max of [1, 59, 60, 61, 59 * MIN, H, 23 * H, D, 45 * D, 400 * D]) {
      const ticks = ageTicks(max);
      expect(ticks[ticks.length - 1]!).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(5);
      expect(ticks.map(formatDuration).join(' ')).not.toMatch(/\./);
    }
  });
});
