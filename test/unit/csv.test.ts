import { describe, expect, it } from 'vitest';
import { csvCell, csvRow } from '@/lib/export/csv';

describe('csvCell', () => {
  it('quotes every cell and doubles quotes; commas and line breaks stay inside', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('say "hi", then\r\nleave')).toBe('"say ""hi"", then\r\nleave"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell(undefined)).toBe('""');
  });

  it('defuses what a spreadsheet would run as a formula', () => {
    for (const f of ['=1+1', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("http://evil.example","x")']) {
      expect(csvCell(f)).toBe(`"'${f.replaceAll('"', '""')}"`);
    }
  });

  it('leaves numbers as numbers, negative ones too', () => {
    expect(csvCell(-5)).toBe('"-5"');
    expect(csvCell('-5.25')).toBe('"-5.25"');
    expect(csvCell(12n)).toBe('"12"');
    expect(csvCell(0)).toBe('"0"');
  });

  it('writes dates as ISO and objects as JSON (bigints as strings)', () => {
    expect(csvCell(new Date('2026-01-02T03:04:05.678Z'))).toBe('"2026-01-02T03:04:05.678Z"');
    expect(csvCell({ a: 1n, b: '=x' })).toBe('"{""a"":""1"",""b"":""=x""}"');
  });

  it('ends each row with CRLF', () => {
    expect(csvRow(['a', 1, null])).toBe('"a","1",""\r\n');
  });
});
