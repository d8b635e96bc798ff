// Detectors for sensitive values in free text: e-mail addresses, IBANs (mod-97 valid) and card
// numbers (Luhn valid, with a known issuer prefix so that epoch-millisecond timestamps and other
// long ids are not taken for cards). Every mask keeps the length of what it hides, so masking the
// latin1 view of a binary payload keeps its byte layout.

// E-mail addresses are found from each "@" outwards: a regex scanning for the local part first
// would be quadratic on a megabyte of letters without one.
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
// 13–19 digits, single spaces or dashes allowed between them, not part of a longer digit run.
const CARD = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
// Country code, check digits, then 11–30 alphanumerics, optionally grouped by spaces.
const IBAN = /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g;

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

// Issuer prefixes (IIN) of the networks in use: Visa, Mastercard, Amex, Discover, JCB, Diners,
// UnionPay, Maestro. A Luhn check alone passes one random number in ten.
const ISSUER = /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|35|3(?:0[0-5]|[68])|5[06-8]|6[037])/;

export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && ISSUER.test(digits) && luhnValid(digits);
}

/** ISO 13616 check: move the first four characters to the end, letters to 10…35, mod 97 = 1. */
export function ibanValid(iban: string): boolean {
  const s = iban.replace(/ /g, '');
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false;
  const rearranged = s.slice(4) + s.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const v = code >= 65 ? String(code - 55) : ch;
    for (const digit of v) rem = (rem * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

const star = (s: string) => s.replace(/[^ -]/g, '*');

/** E-mail: the first character of the local part and the domain stay. */
function maskEmails(text: string, onMask: () => void): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > copied && at - start < 64 && LOCAL_CHAR.test(text[start - 1]!)) start--;
    const domain = DOMAIN.exec(text.slice(at + 1, at + 256));
    if (start === at || !domain) continue;
    onMask();
    out += text.slice(copied, start) + text[start] + '*'.repeat(at - start - 1);
    copied = at;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Card: every digit but the last four (PCI DSS allows showing those), separators kept. */
function maskCard(m: string): string {
  let keep = 4;
  let out = '';
  for (let i = m.length - 1; i >= 0; i--) {
    const c = m[i]!;
    if (c >= '0' && c <= '9') out = (keep-- > 0 ? c : '*') + out;
    else out = c + out;
  }
  return out;
}

/** IBAN: the country code and the last four characters stay, so a reader can tell accounts apart. */
function maskIban(m: string): string {
  let keep = 4;
  let tail = m.length;
  while (keep > 0 && tail > 2) if (m[--tail] !== ' ') keep--;
  return m.slice(0, 2) + star(m.slice(2, tail)) + m.slice(tail);
}

/** The longest IBAN at the start of a match; a match may run on into following capitalised words. */
function ibanPrefix(m: string): string | undefined {
  let candidate = m;
  for (;;) {
    if (ibanValid(candidate)) return candidate;
    const cut = candidate.lastIndexOf(' ');
    if (cut < 0) return undefined;
    candidate = candidate.slice(0, cut);
  }
}

export interface MaskedText {
  text: string;
  /** How many values were masked. */
  masked: number;
}

export function maskTextCounted(text: string): MaskedText {
  let masked = 0;
  let out = maskEmails(text, () => masked++);
  out = out.replace(IBAN, (m) => {
    const iban = ibanPrefix(m);
    if (!iban) return m;
    masked++;
    return maskIban(iban) + m.slice(iban.length);
  });
  out = out.replace(CARD, (m) => {
    if (!isCardNumber(m.replace(/[ -]/g, ''))) return m;
    masked++;
    return maskCard(m);
  });
  return { text: out, masked };
}

/** Masks e-mail addresses, IBANs and card numbers in free text (error messages, stack traces). */
export function maskText(text: string): string {
  return maskTextCounted(text).text;
}

/** Whether the detectors would mask anything in `text`: maskTextCounted's verdict without building its output. */
export function containsSensitive(text: string): boolean {
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (at > 0 && LOCAL_CHAR.test(text[at - 1]!) && DOMAIN.test(text.slice(at + 1, at + 256))) return true;
  }
  for (const m of text.matchAll(IBAN)) if (ibanPrefix(m[0])) return true;
  for (const m of text.matchAll(CARD)) if (isCardNumber(m[0].replace(/[ -]/g, ''))) return true;
  return false;
}
