// Detectors for sensitive values in free text: e-mail addresses, IBANs (mod-97 valid) and card
// numbers (Luhn valid, with a known issuer prefix so that epoch-millisecond timestamps and other
// long ids are not taken for cards). Every mask keeps the length of what it hides, so masking the
// latin1 view of a binary payload keeps its byte layout.

// Every detector reads its text in one pass, never retrying a position: a hostile payload (IBAN-shaped
// one-character groups, digit runs, "@" after "@") costs what an ordinary one does.

// Character classes of the ASCII range (anything above is none of them).
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const LOCAL = 8; // an e-mail local part: letters, digits and . _ % + -
const LABEL = 16; // a domain label: letters, digits and -
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (ch >= 'A' && ch <= 'Z') CLASS[c] = UPPER | LOCAL | LABEL;
  else if (ch >= 'a' && ch <= 'z') CLASS[c] = LOWER | LOCAL | LABEL;
  else if (ch >= '0' && ch <= '9') CLASS[c] = DIGIT | LOCAL | LABEL;
  else if (ch === '-') CLASS[c] = LOCAL | LABEL;
  else if ('._%+'.includes(ch)) CLASS[c] = LOCAL;
}
const ALNUM = UPPER | LOWER | DIGIT;
const SPACE = 32;
const DASH = 45;
const DOT = 46;
const classAt = (text: string, i: number): number => {
  if (i < 0 || i >= text.length) return 0;
  const c = text.charCodeAt(i);
  return c < 128 ? CLASS[c]! : 0;
};

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

/**
 * Whether a domain starts at `from` (-1), else where the scan for one stopped (no "@" before it):
 * labels of letters, digits and "-" joined by single dots, one of them after a dot starting with two
 * letters (a top-level domain), within 255 characters. It stops at the first character no domain
 * holds, so the scans from many "@" never read the same text twice.
 */
function domainScan(text: string, from: number): number {
  const limit = Math.min(text.length, from + 255);
  for (let i = from; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c < 128 && CLASS[c]! & LABEL) continue;
    if (c !== DOT || i === from || i + 1 >= limit) return i;
    const next = text.charCodeAt(i + 1);
    if (!(next < 128 && CLASS[next]! & LABEL)) return i;
    if (i + 2 < limit && CLASS[next]! & (UPPER | LOWER) && classAt(text, i + 2) & (UPPER | LOWER)) return -1;
  }
  return limit;
}

const domainAt = (text: string, from: number): boolean => domainScan(text, from) < 0;

/** E-mail: the first character of the local part and the domain stay. */
function maskEmails(text: string, onMask: () => void): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    // Back to the previous "@" at most (it is no local part character): each character read once.
    while (start > copied && at - start < 64 && classAt(text, start - 1) & LOCAL) start--;
    if (start === at || !domainAt(text, at + 1)) continue;
    onMask();
    out += text.slice(copied, start) + text[start] + '*'.repeat(at - start - 1);
    copied = at;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * A run of units (IBAN: capitals and digits; card: digits) joined by single separators: where each
 * unit is in the text. Every match lies inside one run, so a run is read once and its candidate
 * starts are tried on these positions, whatever their number.
 */
interface Run {
  /** The text index of each unit. */
  at: Int32Array;
  /** How many units. */
  length: number;
}

/** Whether a separator follows unit `u` of `run` (and another unit it). */
const separatedAfter = (run: Run, u: number): boolean => u + 1 < run.length && run.at[u + 1] === run.at[u]! + 2;

/**
 * Calls `onRun` for each run of `unit` characters joined by single separators of at least
 * `minUnits` units, from where `jump` (a fixed-length pattern every match starts with) first
 * matches in it, in order; stops when `onRun` returns true and returns whether one did.
 */
function eachRun(text: string, jump: RegExp, unit: number, separator: number, otherSeparator: number, minUnits: number, onRun: (run: Run) => boolean): boolean {
  // Grows to the longest run (4 bytes a unit); kept between calls up to a 1 MiB window's worth.
  const run: Run = { at: scratch, length: 0 };
  const n = text.length;
  jump.lastIndex = 0;
  // The jump is a native scan past the text no match can start in (most of an ordinary payload).
  for (let found = jump.exec(text); found; found = jump.exec(text)) {
    const i = found.index;
    let at = run.at;
    let units = 0;
    let k = i;
    for (;;) {
      if (units === at.length) {
        const grown = new Int32Array(units * 2);
        grown.set(at);
        at = grown;
      }
      at[units++] = k;
      const next = k + 1 < n ? text.charCodeAt(k + 1) : 0;
      if (next < 128 && CLASS[next]! & unit) {
        k += 1;
        continue;
      }
      if (next !== separator && next !== otherSeparator) break;
      const after = k + 2 < n ? text.charCodeAt(k + 2) : 0;
      if (!(after < 128 && CLASS[after]! & unit)) break;
      k += 2;
    }
    run.at = at;
    if (units >= minUnits) {
      run.length = units;
      if (onRun(run)) return keep(run, true);
    }
    jump.lastIndex = k + 1;
  }
  return keep(run, false);
}

const KEEP_UNITS = 1 << 20;
let scratch: Int32Array = new Int32Array(64);
function keep(run: Run, result: boolean): boolean {
  if (run.at.length <= KEEP_UNITS) scratch = run.at;
  return result;
}

// Fixed length, so linear: IBANs start with a country code and check digits, and a card number's
// 13 digits start with 6 digits joined by single separators.
const IBAN_START = /[A-Z]{2}\d{2}/g;
const CARD_START = /\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d/g;

// x mod 97 for every x below 97 × 100: a lookup instead of a division per character.
const MOD97 = Uint8Array.from({ length: 9700 }, (_, x) => x % 97);
/** mod-97 of `rem` (below 97) followed by the digits of a character (letters count 10…35). */
const mod97 = (rem: number, code: number): number => MOD97[code >= 65 ? rem * 100 + code - 55 : rem * 10 + code - 48]!;
// 10^6 ≡ 27 (mod 97), and 27 × 18 ≡ 1: (rem × 10^6 + head) mod 97 = 1 exactly when rem = (1 − head) × 18 mod 97.
const remFor = (head: number): number => ((((1 - (head % 97)) % 97) + 97) * 18) % 97;

/**
 * IBANs: what `(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])` matches, scanning
 * on past each match, and the end of the longest valid IBAN that starts it, ending where a space is
 * or where the match ends (-1 when none). Stops when `onMatch` returns true and returns whether it did.
 */
function scanIbans(text: string, onMatch: (start: number, end: number, ibanEnd: number) => boolean): boolean {
  return eachRun(text, IBAN_START, UPPER | DIGIT, SPACE, SPACE, 15, (run) => {
    const { at, length } = run;
    let j = 0;
    while (j < length) {
      const s = at[j]!;
      // Country code and check digits, unspaced, after no letter or digit.
      const shaped =
        j + 3 < length &&
        at[j + 3] === s + 3 &&
        classAt(text, s) & UPPER &&
        classAt(text, s + 1) & UPPER &&
        classAt(text, s + 2) & DIGIT &&
        classAt(text, s + 3) & DIGIT &&
        !(classAt(text, s - 1) & ALNUM);
      let end = -1;
      // The most of 11–30 further units after which comes no letter or digit.
      if (shaped) {
        for (let e = Math.min(j + 33, length - 1); e >= j + 14 && end < 0; e--) {
          if (e + 1 < length ? separatedAfter(run, e) : !(classAt(text, at[e]! + 1) & ALNUM)) end = e;
        }
      }
      if (end < 0) {
        // The next start follows a space (a unit after a unit has a letter or digit before it).
        for (j++; j < length && !separatedAfter(run, j - 1); j++);
        continue;
      }
      // ISO 13616: the units after the first four, then those four, read as digits, mod 97 = 1.
      // The first four as digits: two two-digit letters and two digits, six digits in all.
      const head = (text.charCodeAt(s) - 55) * 10_000 + (text.charCodeAt(s + 1) - 55) * 100 + (text.charCodeAt(s + 2) - 48) * 10 + text.charCodeAt(s + 3) - 48;
      const wanted = remFor(head);
      let rem = 0;
      let valid = -1;
      for (let u = j + 4; u <= end; u++) {
        rem = mod97(rem, text.charCodeAt(at[u]!));
        if (rem === wanted && u >= j + 14 && (u === end || separatedAfter(run, u))) valid = u;
      }
      if (onMatch(s, at[end]! + 1, valid < 0 ? -1 : at[valid]! + 1)) return true;
      j = end + 1;
    }
    return false;
  });
}

/**
 * Card numbers: what `(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)` matches, scanning on past each match, with
 * a known issuer and a valid Luhn check. Stops when `onMatch` returns true and returns whether it did.
 */
// A Luhn digit doubled, its digits summed.
const LUHN_DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

function scanCards(text: string, onMatch: (start: number, end: number) => boolean): boolean {
  return eachRun(text, CARD_START, DIGIT, SPACE, DASH, 13, (run) => {
    const { at, length } = run;
    let j = 0;
    // Where a match may end (the last digit, or one a separator follows), found by one pointer that
    // only moves forward: the latest such unit before `scanned`.
    let scanned = 0;
    let lastEnd = -1;
    while (j < length) {
      // The most of 12–18 further digits that no digit follows.
      for (const hi = Math.min(j + 18, length - 1); scanned <= hi; scanned++) {
        if (scanned + 1 === length || at[scanned + 1] === at[scanned]! + 2) lastEnd = scanned;
      }
      const end = lastEnd >= j + 12 ? lastEnd : -1;
      if (end < 0) {
        for (j++; j < length && !separatedAfter(run, j - 1); j++);
        continue;
      }
      let sum = 0;
      for (let u = end, doubled = false; u >= j; u--, doubled = !doubled) {
        const d = text.charCodeAt(at[u]!) - 48;
        sum += doubled ? LUHN_DOUBLED[d]! : d;
      }
      const start = at[j]!;
      if (sum % 10 === 0 && ISSUER.test(text.slice(start, start + 8).replace(/[ -]/g, ''))) {
        if (onMatch(start, at[end]! + 1)) return true;
      }
      j = end + 1;
    }
    return false;
  });
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

export interface MaskedText {
  text: string;
  /** How many values were masked. */
  masked: number;
}

export function maskTextCounted(text: string): MaskedText {
  let masked = 0;
  const emailed = maskEmails(text, () => masked++);
  let out = '';
  let copied = 0;
  // A match may run on into following capitalised words: the IBAN is its longest valid start.
  scanIbans(emailed, (start, _end, ibanEnd) => {
    if (ibanEnd < 0) return false;
    masked++;
    out += emailed.slice(copied, start) + maskIban(emailed.slice(start, ibanEnd));
    copied = ibanEnd;
    return false;
  });
  const ibanned = copied === 0 ? emailed : out + emailed.slice(copied);
  out = '';
  copied = 0;
  scanCards(ibanned, (start, end) => {
    masked++;
    out += ibanned.slice(copied, start) + maskCard(ibanned.slice(start, end));
    copied = end;
    return false;
  });
  return { text: copied === 0 ? ibanned : out + ibanned.slice(copied), masked };
}

/** Masks e-mail addresses, IBANs and card numbers in free text (error messages, stack traces). */
export function maskText(text: string): string {
  return maskTextCounted(text).text;
}

/** Whether the detectors would mask anything in `text`: maskTextCounted's verdict without building its output. */
export function containsSensitive(text: string): boolean {
  for (let at = text.indexOf('@'); at >= 0; ) {
    let from = at + 1;
    if (classAt(text, at - 1) & LOCAL) {
      const stop = domainScan(text, from);
      if (stop < 0) return true;
      from = stop;
    }
    // Where "@" follows "@" (a hostile run of them), the domain scan stopped on the next one.
    at = text.charCodeAt(from) === 64 ? from : text.indexOf('@', from);
  }
  return scanIbans(text, (_start, _end, ibanEnd) => ibanEnd >= 0) || scanCards(text, () => true);
}
