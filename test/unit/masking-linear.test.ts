// Hostile payloads cost the detectors no more than ordinary ones: every detector reads its input in
// one pass. The inputs below are shaped to make a backtracking matcher retry each position (IBAN-like
// one-character groups, digit runs with separators, "@" after "@"); the old detectors took seconds
// on each, and a real value at the end must still be found and masked.
import { describe, expect, it } from 'vitest';
import { containsSensitive, maskTextCounted } from '@/lib/masking';
import { bytesContainSensitive } from '@/lib/masking/verdict';

const MiB = 1024 * 1024;
// Generous: the linear detectors read these in tens of milliseconds, the old ones in seconds.
const TIMEOUT = 2_000;

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
