import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '@/lib/duration';

describe('durations', () => {
  it('reads as the two largest units', () => {
    expect([0, 42, 60, 5400, 3600, 86_400, 3 * 86_400 + 4 * 3600 + 59].map(formatDuration)).toEqual([
      '0 s',
      '42 s',
      '1 min',
      '1 h 30 min',
      '1 h',
      '1 d',
      '3 d 4 h',
    ]);
  });

  it('parses what people type on the command line', () => {
    expect(['14d', '36h', '1.5h', '90m', '45s', '3600', ' 7d '].map(parseDuration)).toEqual([1_209_600, 129_600, 5400, 5400, 45, 3600, 604_800]);
    expect(['', '7 days', '-1d', 'd'].map(parseDuration)).toEqual([undefined, undefined, undefined, undefined]);
  });
});
