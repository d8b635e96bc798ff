// The declared transform and the edit diff (lib/redrive/edit): pure, so the preview, the task and the page agree.
import { describe, expect, it } from 'vitest';
import { applyTransform, transformSpec } from '@/lib/redrive/edit/transform';
import { editDiff } from '@/lib/redrive/edit/diff';

const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));
const json = (b: Uint8Array) => JSON.parse(Buffer.from(b).toString()) as unknown;

describe('applyTransform', () => {
  it('sets, renames and removes paths and replaces a header', () => {
    const r = applyTransform(bytes({ order: 1, gift: true, customer: { name: 'a' }, items: [{ sku: 'x' }, { sku: 'y' }] }), { h: '1' }, [
      { op: 'remove', path: '$.gift' },
      { op: 'rename', path: '$.customer.name', to: 'fullName' },
      { op: 'set', path: '$.items[*].qty', value: 1 },
      { op: 'set', path: '$.schema', value: 2 },
      { op: 'header', name: 'h', value: '2' },
      { op: 'header', name: 'gone', value: null },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(json(r.payload)).toEqual({
      order: 1,
      customer: { fullName: 'a' },
      items: [
        { sku: 'x', qty: 1 },
        { sku: 'y', qty: 1 },
      ],
      schema: 2,
    });
    expect(r.headers).toEqual({ h: '2' });
    expect(r.changes.map((c) => c.op)).toEqual(['remove', 'rename', 'add', 'add', 'add']);
  });

  it('does not apply to a payload that is not JSON, or a missing path', () => {
    expect(applyTransform(Buffer.from('order=1'), {}, [{ op: 'remove', path: '$.gift' }])).toEqual({ ok: false, why: 'not JSON' });
    expect(applyTransform(Buffer.from([0xff, 0xfe]), {}, [{ op: 'set', path: '$.a', value: 1 }])).toEqual({ ok: false, why: 'not JSON' });
    expect(applyTransform(bytes({ order: 1 }), {}, [{ op: 'remove', path: '$.gift' }])).toEqual({ ok: false, why: 'path missing: $.gift' });
    expect(applyTransform(bytes({ order: 1 }), {}, [{ op: 'set', path: '$.a.b', value: 1 }])).toEqual({ ok: false, why: 'path missing: $.a.b' });
    expect(applyTransform(bytes({ a: 1, b: 2 }), {}, [{ op: 'rename', path: '$.a', to: 'b' }])).toMatchObject({ ok: false });
  });

  it('a header-only transform applies to any payload, bytes untouched', () => {
    const raw = Buffer.from([0xff, 0x00, 0x7f]);
    const r = applyTransform(raw, {}, [{ op: 'header', name: 'x', value: 'y' }]);
    expect(r.ok && Buffer.compare(r.payload, raw)).toBe(0);
  });

  it('refuses a path outside the JSONPath subset', () => {
    expect(transformSpec.safeParse([{ op: 'remove', path: 'gift' }]).success).toBe(false);
    expect(transformSpec.safeParse([{ op: 'remove', path: '$' }]).success).toBe(false);
    expect(transformSpec.safeParse([]).success).toBe(false);
  });
});

describe('editDiff', () => {
  it('is structural for JSON, by lines for text, a flag for bytes, by name for headers', () => {
    expect(editDiff({ payload: bytes({ a: 1, gift: true }), headers: { h: 'a' } }, { payload: bytes({ a: 2 }), headers: { h: 'a', n: 'b' } })).toEqual({
      payload: {
        kind: 'json',
        truncated: false,
        changes: [
          { op: 'set', path: '$.a', before: 1, after: 2 },
          { op: 'remove', path: '$.gift', before: true },
        ],
      },
      headers: [{ name: 'n', before: null, after: 'b' }],
    });
    expect(editDiff({ payload: Buffer.from('a\nb\nc'), headers: {} }, { payload: Buffer.from('a\nB\nc'), headers: {} }).payload).toEqual({
      kind: 'text',
      removed: ['b'],
      added: ['B'],
      truncated: false,
    });
    expect(editDiff({ payload: Buffer.from([0xff]), headers: {} }, { payload: Buffer.from([0xfe]), headers: {} }).payload).toEqual({
      kind: 'bytes',
      changed: true,
    });
  });
});
