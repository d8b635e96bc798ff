import { describe, expect, it } from 'vitest';
import { decodeBase64 } from '@/lib/ingest/ingest-item';

describe('decodeBase64 (ingest payloads)', () => {
  it('decodes standard and URL-safe base64, padded or not', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x00, 0x41]);
    expect(decodeBase64(bytes.toString('base64'))).toEqual(bytes);
    expect(decodeBase64(bytes.toString('base64url'))).toEqual(bytes);
    expect(decodeBase64('QQ==')).toEqual(Buffer.from('A'));
    expect(decodeBase64('QQ')).toEqual(Buffer.from('A'));
    expect(decodeBase64('QUI=')).toEqual(Buffer.from('AB'));
    expect(decodeBase64('')).toEqual(Buffer.alloc(0));
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(decodeBase64(all.toString('base64'))).toEqual(all);
    expect(decodeBase64(all.toString('base64url'))).toEqual(all);
  });

  it('refuses what is not strictly one alphabet with well-formed padding', () => {
    for (const bad of [
      'Q',
      'QQ=',
      'QUJD=',
      '=',
      '===',
      '====',
      'QQ===',
      '+/-_',
      'QU JD',
      'QUJD\n',
      'QQ==QQ==',
      'QUJé',
      'QU=D',
      'QU JDQQ',
      'QUJD QUJD',
      'QUJD\tQUJD',
      'QUJD.QUJD',
      'Q\u0000JD',
      'QQ==QUJD',
      'QUJDQ===',
      'QUJD+Q_=',
    ]) {
      expect(decodeBase64(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
