import { describe, expect, it } from 'vitest';
import { takeWithinBytes } from '@/lib/db/byte-bound';

describe('takeWithinBytes', () => {
  it('takes rows in order while their sizes fit the bound', () => {
    expect(takeWithinBytes([3, 3, 3, 3], 8)).toBe(2);
    expect(takeWithinBytes([4, 4, 1], 8)).toBe(2);
    expect(takeWithinBytes([1, 2, 3], 100)).toBe(3);
  });

  it('always takes the first row, even one larger than the bound, and nothing from nothing', () => {
    expect(takeWithinBytes([9, 1], 8)).toBe(1);
    expect(takeWithinBytes([], 8)).toBe(0);
  });
});
