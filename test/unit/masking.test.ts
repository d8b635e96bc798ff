import { describe, expect, it } from 'vitest';
import {
  MASKED,
  canReveal,
  containsSensitive,
  ibanValid,
  luhnValid,
  maskJson,
  maskJsonPayload,
  maskPayload,
  maskText,
  parseJsonPath,
  sensitivePathsOf,
  sensitivePathsSchema,
  textVerdict,
} from '@/lib/masking';

describe('detectors', () => {
  it('checks Luhn and IBAN mod-97', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('DE89 3704 0044 0532 0130 01')).toBe(false);
  });

  it('masks e-mails, IBANs and Luhn-valid card numbers in text, keeping the length', () => {
    const text = 'charge failed for jane.doe@example.com card 4111 1111 1111 1111 (amex 378282246310005) to DE89 3704 0044 0532 0130 00 ON HOLD';
    const masked = maskText(text);
    expect(masked).toBe('charge failed for j*******@example.com card **** **** **** 1111 (amex ***********0005) to DE** **** **** **** **30 00 ON HOLD');
    expect(masked).toHaveLength(text.length);
  });

  it('leaves what only looks like a card or an IBAN', () => {
    const text = 'order 4111111111111112 at 1700000000000 ms, ref DE89 3704 0044 0532 0130 01, user@localhost';
    expect(maskText(text)).toBe(text);
  });

  it('masks several values and stays linear on long text without any', () => {
    expect(maskText('xy@b.io,cz@d.io')).toBe('x*@b.io,c*@d.io');
    const long = 'a'.repeat(2_000_000);
    expect(maskText(`${long}@`)).toBe(`${long}@`);
  });

  it('masks a stack trace line by line', () => {
    const stack = 'Error: no account for bob@bank.example\n    at charge (src/pay.ts:10:3)\n    at 5500-0000-0000-0004';
    expect(maskText(stack)).toBe('Error: no account for b**@bank.example\n    at charge (src/pay.ts:10:3)\n    at ****-****-****-0004');
  });
});

describe('JSON paths', () => {
  it('parses the supported subset', () => {
    expect(parseJsonPath('$.card.number')).toEqual([
      { kind: 'key', name: 'card' },
      { kind: 'key', name: 'number' },
    ]);
    expect(parseJsonPath("$.items[*]['tax-id'][0]..email")).toEqual([
      { kind: 'key', name: 'items' },
      { kind: 'wildcard' },
      { kind: 'key', name: 'tax-id' },
      { kind: 'index', index: 0 },
      { kind: 'descendant', name: 'email' },
    ]);
    expect(() => parseJsonPath('card.number')).toThrow(/must start with \$/);
    expect(() => parseJsonPath('$.a[')).toThrow(/unexpected/);
  });

  it('validates a source policy and skips stored entries that no longer parse', () => {
    expect(sensitivePathsSchema.safeParse(['$.a', '$..b']).success).toBe(true);
    expect(sensitivePathsSchema.safeParse(['a.b']).success).toBe(false);
    expect(sensitivePathsOf(['$.a', 'nope', 3])).toEqual(['$.a']);
    expect(sensitivePathsOf(null)).toEqual([]);
  });
});

describe('maskJson', () => {
  const payload = {
    card: { number: '4111111111111111', expiry: '12/30' },
    customer: { email: 'ann@shop.example', name: 'Ann' },
    items: [{ sku: 'A1', note: 'call 5500000000000004' }],
    deep: { x: { email: 'x@y.example' } },
  };

  it('hides whole values under the paths and masks detected values elsewhere', () => {
    expect(maskJson(payload, ['$.card.number', '$.customer.name', '$..email'])).toEqual({
      card: { number: MASKED, expiry: '12/30' },
      customer: { email: MASKED, name: MASKED },
      items: [{ sku: 'A1', note: 'call ************0004' }],
      deep: { x: { email: MASKED } },
    });
    // The caller's value is untouched.
    expect(payload.card.number).toBe('4111111111111111');
  });

  it('masks a path to an object or array as a whole', () => {
    expect(maskJson(payload, ['$.card', '$.items[*]'])).toMatchObject({ card: MASKED, items: [MASKED] });
  });
});

describe('maskJsonPayload', () => {
  const bytes = (s: string) => Buffer.from(s, 'utf8');

  it('returns the bytes untouched when nothing is sensitive', () => {
    const raw = bytes('{"a": 1,  "b": "plain"}');
    const r = maskJsonPayload(raw, ['$.missing']);
    expect(r.masked).toBe(0);
    expect(r.bytes.equals(raw)).toBe(true);
  });

  it('masks JSON by path and detectors, keeping big integers exact', () => {
    const r = maskJsonPayload(bytes('{"card":{"number":4111111111111111},"id":12345678901234567890,"mail":"a.b@c.example","secret":"s"}'), ['$.secret']);
    expect(r.masked).toBe(3);
    expect(r.bytes.toString()).toBe('{"card":{"number":"************1111"},"id":12345678901234567890,"mail":"a**@c.example","secret":"***"}');
  });

  it('keeps an indented payload indented', () => {
    const r = maskJsonPayload(bytes('{\n  "email": "zed@q.example"\n}'), []);
    expect(r.bytes.toString()).toBe('{\n  "email": "z**@q.example"\n}');
  });

  it('masks text payloads with the detectors', () => {
    expect(maskJsonPayload(bytes('to=ann@shop.example&card=4111111111111111')).bytes.toString()).toBe('to=a**@shop.example&card=************1111');
  });

  it('masks binary payloads byte for byte', () => {
    const raw = Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), bytes(' iban GB82WEST12345698765432 '), Buffer.from([0x80])]);
    const r = maskJsonPayload(raw, []);
    expect(r.masked).toBe(1);
    expect(r.bytes).toHaveLength(raw.length);
    expect(r.bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0x00, 0xfe]));
    expect(r.bytes.toString('latin1')).toContain('GB****************5432');
  });
});

describe('who sees masked values', () => {
  it('follows payload.reveal in the permission map', () => {
    expect(canReveal({ userId: 'u', email: 'a', role: 'auditor', teamId: null, via: 'session' })).toBe(false);
    expect(canReveal({ userId: 'u', email: 'a', role: 'support', teamId: 't', via: 'session' })).toBe(true);
    expect(canReveal({ system: true })).toBe(true);
  });
});

describe('maskPayload fails closed', () => {
  const bytes = (s: string) => Buffer.from(s, 'utf8');

  it('hides a payload flagged sensitive, and one whose paths cannot be located', () => {
    expect(maskPayload(bytes('{"a":1}'), { sensitive: true, paths: [] })).toMatchObject({ state: 'hidden', why: 'This payload is marked sensitive.' });
    expect(maskPayload(bytes('<card>4111111111111111</card>'), { paths: ['$.card'] })).toMatchObject({ state: 'hidden' });
    expect(maskPayload(Buffer.from([0xff, 0xfe]), { paths: ['$.card'] })).toMatchObject({ state: 'hidden' });
    const deep = `${'['.repeat(100)}"a@b.example"${']'.repeat(100)}`;
    expect(maskPayload(bytes(deep), { paths: ['$.x'] })).toMatchObject({ state: 'hidden', why: expect.stringMatching(/too deeply/) });
    expect(maskPayload(bytes('{"a":1}'), { paths: ['not a path'] })).toMatchObject({ state: 'hidden' });
  });

  it('masks by detectors alone where no paths are set, deep or not JSON', () => {
    const deep = `${'['.repeat(100)}"ann@b.example"${']'.repeat(100)}`;
    const r = maskPayload(bytes(deep), { paths: [] });
    expect(r).toMatchObject({ state: 'masked', json: null, masked: 1 });
    expect(r.state === 'masked' && r.bytes.toString()).toContain('"a**@b.example"');
    expect(maskPayload(bytes('nothing here'), { paths: [] })).toEqual({ state: 'clear' });
  });

  it('gives indented JSON for the viewer and keeps compact bytes compact', () => {
    const r = maskPayload(bytes('{"card":{"number":"4111111111111111"},"n":1}'), { paths: ['$.card.number'] });
    expect(r).toEqual({
      state: 'masked',
      masked: 1,
      bytes: bytes('{"card":{"number":"***"},"n":1}'),
      json: '{\n  "card": {\n    "number": "***"\n  },\n  "n": 1\n}',
    });
  });
});

describe('payloads over the field-by-field limit', () => {
  it('are scanned whole: a card number after 6 MB is found, the payload is not clear', () => {
    const big = Buffer.from(`{"log":"${'x'.repeat(6_000_000)} card 4111111111111111"}`);
    expect(maskPayload(big, { paths: [] }).state).not.toBe('clear');
    expect(maskPayload(Buffer.from(`{"log":"${'x'.repeat(6_000_000)}"}`), { paths: [] }).state).toBe('clear');
  });
});

describe('textVerdict', () => {
  // It scans each part on its own: the verdict must be the one of a scan of the parts joined by a line break.
  const cases: (string | null | undefined)[][] = [
    ['{"a":"ops@example.com"}', null, undefined, '[]'],
    ['ops@', 'example.com'],
    ['ops', '@example.com'],
    ['@example.com'],
    ['4111 1111', '1111 1111'],
    ['4111111111111111'],
    ['x 4111111111111111', 'y'],
    ['DE89 3704 0044', '0532 0130 00'],
    ['DE89 3704 0044 0532 0130 00'],
    ['DE89370400440532013000x'],
    ['nothing here', 'Order 12 rejected', 'com.acme.X: bad\n\tat com.acme.Y.z(Y.java:42)', '[{"count":1}]'],
    [null, null],
    [],
  ];
  it.each(cases.map((c) => [c]))('agrees with one scan of the parts joined: %j', (parts) => {
    expect(textVerdict(parts)).toBe(containsSensitive(parts.filter((s) => s != null).join('\n')));
  });
  it('finds a value in any part', () => {
    expect(textVerdict(['clean', null, 'card 4111111111111111'])).toBe(true);
    expect(textVerdict(['clean', 'also clean'])).toBe(false);
  });
});
