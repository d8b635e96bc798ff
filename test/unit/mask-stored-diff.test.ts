import { describe, expect, it } from 'vitest';
import { maskStoredDiff } from '@/lib/masking';

const diff = (changes: unknown[]) => ({ payload: { kind: 'json', changes, truncated: false }, headers: [] });

describe('a stored diff masked by the policy as it is now', () => {
  const paths = ['$.account.code', '$.items[*].pan'];

  it('hides a change at a sensitive path, keeps the others', () => {
    const out = maskStoredDiff(
      diff([
        { op: 'set', path: '$.account.code', before: 'A-1', after: 'A-2' },
        { op: 'set', path: '$.note', before: 'x', after: 'y' },
      ]),
      { paths },
    );
    expect(out).toEqual(
      diff([
        { op: 'set', path: '$.account.code', before: '***', after: '***' },
        { op: 'set', path: '$.note', before: 'x', after: 'y' },
      ]),
    );
  });

  it('masks inside an object value that holds a sensitive path', () => {
    const out = maskStoredDiff(
      diff([
        { op: 'remove', path: '$.account', before: { code: 'A-1', bank: 'B' } },
        { op: 'add', path: '$.items[2]', after: { pan: '9', qty: 1 } },
      ]),
      { paths },
    );
    expect(out).toEqual(
      diff([
        { op: 'remove', path: '$.account', before: { code: '***', bank: 'B' } },
        { op: 'add', path: '$.items[2]', after: { pan: '***', qty: 1 } },
      ]),
    );
  });

  it('hides a value cut short for the diff (its inside cannot be read), and every value of a sensitive dead letter', () => {
    expect(maskStoredDiff(diff([{ op: 'remove', path: '$.account', before: '{"code":"A-1"… (5000 chars)' }]), { paths })).toEqual(
      diff([{ op: 'remove', path: '$.account', before: '***' }]),
    );
    expect(maskStoredDiff(diff([{ op: 'set', path: '$.note', before: 'x', after: 'y' }]), { sensitive: true, paths: [] })).toEqual(
      diff([{ op: 'set', path: '$.note', before: '***', after: '***' }]),
    );
  });

  it('hides the lines of a text diff, and fails closed on a path it cannot read', () => {
    const text = { payload: { kind: 'text', removed: ['code=A-1'], added: ['code=A-2'], truncated: false }, headers: [] };
    expect(maskStoredDiff(text, { paths })).toMatchObject({
      payload: { removed: [expect.stringMatching(/^\(hidden/)], added: [expect.stringMatching(/^\(hidden/)] },
    });
    expect(maskStoredDiff(diff([{ op: 'set', path: 'not a path', before: 'A-1' }]), { paths })).toEqual(
      diff([{ op: 'set', path: 'not a path', before: '***' }]),
    );
  });

  it('leaves a diff alone when the policy names nothing', () => {
    const d = diff([{ op: 'set', path: '$.account.code', before: 'A-1', after: 'A-2' }]);
    expect(maskStoredDiff(d, { paths: [] })).toBe(d);
  });
});
