// Hostile payloads cost the detectors no more than ordinary ones: every detector reads its input in
// one pass. The inputs below are shaped to make a backtracking matcher retry each position (IBAN-like
// one-character groups, digit runs with separators, "@" after "@"); the old detectors took seconds
// on each, and a real value at the end must still be found and masked.
import { describe, expect, it } from 'vitest';
import { containsSensitive, ibanValid, isCardNumber, maskText, maskTextCounted } from '@/lib/masking';
import { bytesContainSensitive } from '@/lib/masking/verdict';

const MiB = 1024 * 1024;
// What these inputs cost is measured in `npm run bench cost` (ratios to ordinary input, in one run),
// not here: a time limit in a test fails on a loaded machine (2 s did, at a load of 20 on two
// cores). This bound only stops a matcher that never finishes.
const TIMEOUT = 60_000;

const repeatTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

const hostile = {
  // A country code and check digits, then one-character groups: an IBAN shape that fails mod-97.
  ibanGroups: repeatTo('DE12 A B C D E F G H I J K L M N O P Q R S T U V W X Y Z A B C D E ', 8 * MiB),
  // Digits with single separators: every digit starts a card-shaped run (no issuer starts with 1).
  digitRuns: repeatTo('1 1 1 1 1 1 1 1 1 1 1-1-1-1-1-1-1-1-1-1-1 1 1 1 1 1111111111111111111111 ', 8 * MiB),
  // A local part before every "@", and domains that never end in a top-level domain.
  emails: repeatTo('a@b.c-a@', 8 * MiB),
};

const iban = 'DE89 3704 0044 0532 0130 00';
const card = '4111 1111 1111 1111';
const email = 'jane.doe@example.com';

describe('detectors on hostile input', () => {
  for (const [name, text] of Object.entries(hostile)) {
    it(
      `${name}: nothing found in 8 MiB`,
      () => {
        expect(containsSensitive(text)).toBe(false);
        expect(bytesContainSensitive(Buffer.from(text, 'latin1'))).toBe(false);
      },
      TIMEOUT,
    );

    it(
      `${name}: a real value at the end is found and masked`,
      () => {
        const withValues = `${text} ${iban} card ${card} to ${email}`;
        expect(bytesContainSensitive(Buffer.from(withValues, 'latin1'))).toBe(true);
        const m = maskTextCounted(withValues);
        expect(m.masked).toBe(3);
        expect(m.text.length).toBe(withValues.length);
        expect(m.text.slice(0, text.length)).toBe(text);
        expect(m.text.slice(text.length)).toBe(' DE** **** **** **** **30 00 card **** **** **** 1111 to j*******@example.com');
      },
      TIMEOUT,
    );
  }
});

// The regexes the scanners replace, as a reference on short text (where backtracking costs nothing).
const REF_CARD = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
const REF_IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;
const REF_DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
// Values found alone are masked by the scanners as they were by the regexes (masking.test.ts).
function refMask(text: string): { text: string; masked: number } {
  let masked = 0;
  let res = '';
  let copied = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > copied && at - start < 64 && /[A-Za-z0-9._%+-]/.test(text[start - 1]!)) start--;
    if (start === at || !REF_DOMAIN.test(text.slice(at + 1, at + 256))) continue;
    masked++;
    res += text.slice(copied, start) + text[start] + '*'.repeat(at - start - 1);
    copied = at;
  }
  let out = copied === 0 ? text : res + text.slice(copied);
  out = out.replace(REF_IBAN, (m) => {
    for (let c = m; ; c = c.slice(0, c.lastIndexOf(' '))) {
      if (ibanValid(c)) {
        masked++;
        return maskText(c) + m.slice(c.length);
      }
      if (!c.includes(' ')) return m;
    }
  });
  out = out.replace(REF_CARD, (m) => {
    if (!isCardNumber(m.replace(/[ -]/g, ''))) return m;
    masked++;
    return maskText(m);
  });
  return { text: out, masked };
}

describe('detectors agree with the regexes they replace', () => {
  it('on random text of IBAN, card and e-mail characters', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['DE89 3704 0044 0532 0130 00', '4111 1111 1111 1111', '378282246310005', 'GB82WEST12345698765432', 'a@b.co', 'x.y@ex-ample.org'];
    const alphabet = 'DEGB0123456789 -@.aZx';
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      const len = Math.floor(random() * 80);
      while (text.length < len) {
        text += random() < 0.1 ? pieces[Math.floor(random() * pieces.length)] : alphabet[Math.floor(random() * alphabet.length)];
      }
      const ref = refMask(text);
      expect(maskTextCounted(text), JSON.stringify(text)).toEqual(ref);
      expect(containsSensitive(text), JSON.stringify(text)).toBe(ref.masked > 0);
    }
  }, 60_000); // many random cases: seconds on a loaded machine; speed is the bench's
});
