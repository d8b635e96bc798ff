// Crafted stack lines cost the frame parser what ordinary ones do: it reads each line without
// retrying a position. The old patterns took tens of milliseconds on one 8 KiB `at a.a.a.…` line;
// the frames found must not change.
import { describe, expect, it } from 'vitest';
import { topInAppFrame } from '@/lib/clustering/stack-frame';

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const ROUNDS = 400;
// Generous: the old parser took 1 to 40 ms a line on those with no end to match, the linear one
// well under 1 ms.
const TIMEOUT = 1_000;

const crafted: [string, string, { fn: string; file: string } | undefined][] = [
  ['dotted name, no parentheses', `at ${repeatTo('a.', 8000)}`, undefined],
  ['dotted name, unclosed parenthesis', `at ${repeatTo('a.', 8000)}(x`, undefined],
  ['Ruby-like, from', `from ${repeatTo("a:1:in 'x", 8000)}`, { fn: repeatTo("xa:1:in '", 7990), file: 'a' }],
  ['Ruby-like', repeatTo("a:1:in 'x", 8000), { fn: repeatTo("xa:1:in '", 7990), file: 'a' }],
  ['Rust panics', `${repeatTo(' panicked at x', 8000)} panicked at src/a.rs:1:2`, { fn: '', file: 'x panicked at x' }],
  // No closing quote: every ":1:in '" was a candidate read to the end of the line.
  ['Ruby-like, unclosed', repeatTo("a:1:in 'x", 8192), undefined],
  ['Ruby-like, from, unclosed', `from ${repeatTo("a:1:in 'x", 8192)}`, undefined],
  // No ".rs:": every " panicked at " was a candidate read to the end of the line.
  ['Rust panics without a location', repeatTo(' panicked at x', 8192), undefined],
];

describe('stack frame parser on crafted lines', () => {
  for (const [name, line, expected] of crafted) {
    it(
      `${name}: ${ROUNDS} lines of 8 KiB`,
      () => {
        for (let i = 0; i < ROUNDS; i++) {
          const f = topInAppFrame(line);
          if (expected?.file === 'x panicked at x') {
            // The panic's location is everything up to the first ".rs" (normalised to its last segments).
            expect(f?.fn).toBe('');
            expect(f?.file.startsWith(expected.file)).toBe(true);
            expect(f?.file.endsWith('src/a.rs')).toBe(true);
          } else expect(f).toEqual(expected);
        }
      },
      TIMEOUT,
    );
  }

  it('a dotted name glued to its parentheses is still a frame', () => {
    expect(topInAppFrame(`at ${repeatTo('a.', 8000)}a(x)`)).toEqual({ fn: `${repeatTo('a.', 8000)}a`, file: 'x' });
    expect(topInAppFrame(`at ${repeatTo('a.', 8000)}a(Native Method)`)).toBeUndefined();
    expect(topInAppFrame('at com.acme.Orders.place(Native Method)')).toBeUndefined();
    expect(topInAppFrame('at Acme.Orders.Place(String key, Int32 n)')).toEqual({ fn: 'Acme.Orders.Place', file: '' });
  });
});
