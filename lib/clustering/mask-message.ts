// Token-level masking of an error message into a template: what varies between two dead letters
// with the same cause (numbers, ids, hex, UUIDs, IPs and ports, e-mails, URL and path segments with
// ids, quoted values, timestamps, durations and sizes) becomes `<*>`; the words that name the cause
// stay. No rule here knows a particular message: every decision looks at one token's shape and, for
// dates, units and status codes, at its neighbour. Runs at ingest, so it is a single pass with no
// backtracking regex over the whole message.

export const MASK = '<*>';

/** Longer messages are cut: what names the cause is at the start, and the cost stays bounded. */
const MAX_MESSAGE_CHARS = 2048;
/** A quoted value longer than this is not taken as one value (an unbalanced quote, most likely). */
const MAX_QUOTED_CHARS = 512;
/** Stands for a masked quoted value until the tokens are built; never occurs in real text. */
const QUOTED = '\u0000';

const LEADING_PUNCT = new Set(['(', '[', '{', '<', '"', "'", '`']);
const TRAILING_PUNCT = new Set([')', ']', '}', '>', '"', "'", '`', ',', ';', ':', '.', '!', '?']);
/** Characters after which a quote opens a quoted value (besides whitespace and the start). */
const QUOTE_OPENERS_AFTER = new Set(['(', '[', '{', '<', '=', ':', ',']);
/** Characters that may follow the closing quote of a quoted value (besides whitespace and the end). */
const QUOTE_CLOSERS_BEFORE = new Set([')', ']', '}', '>', ',', ';', ':', '.', '!', '?']);

const MONTHS_AND_DAYS = new Set([
  'jan',
  'feb',
  'mar',
  'apr',
  'may',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  'january',
  'february',
  'march',
  'april',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'mon',
  'tue',
  'tues',
  'wed',
  'thu',
  'thur',
  'thurs',
  'fri',
  'sat',
  'sun',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
]);

/**
 * Words that belong to the number before them: units whose scale varies with it ("16.0 B" /
 * "317.5 KB", "30 s" / "2 min"), and am/pm.
 */
const UNITS = new Set([
  'am',
  'pm',
  'b',
  'byte',
  'bytes',
  'kb',
  'mb',
  'gb',
  'tb',
  'pb',
  'kib',
  'mib',
  'gib',
  'tib',
  'ns',
  'us',
  'µs',
  'ms',
  's',
  'sec',
  'secs',
  'second',
  'seconds',
  'min',
  'mins',
  'minute',
  'minutes',
  'h',
  'hr',
  'hrs',
  'hour',
  'hours',
  'day',
  'days',
]);

/**
 * Words after which a 3-digit number is a status or exit code, which names the cause (`status code
 * 503` vs `429`, `exit code 137`). A bare `status: 200` in an access log stays a variable.
 */
const STATUS_WORDS = new Set(['code', 'statuscode', 'status_code', 'http']);

/**
 * A quoted HTTP request line keeps its method: `"GET /v2/…/servers HTTP/1.1"` → `"GET <*>"`. Only
 * before a request target: `"DELETE FROM orders"` is a quoted SQL fragment, one value.
 */
const REQUEST_LINE = /^(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|CONNECT|TRACE) (?=\/|\*|<\*>|[a-z]+:\/\/)/;

/** An empty value between brackets, a word of its own. */
const EMPTY_VALUES = new Set(['()', '[]', '{}', '<>']);

/** Values that are flags, not words: `isScreenOn true`. */
const BOOLEANS = new Set(['true', 'false', 'True', 'False', 'TRUE', 'FALSE']);

/** Identifiers that end in one digit name a thing, not an instance: `ssh2`, `SOCKS5`, `eth0`, `utf8`. */
const NAME_WITH_DIGIT = /^[A-Za-z]{2,}\d$/;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);

function hasDigit(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isDigit(s.charCodeAt(i))) return true;
  return false;
}

/**
 * Replaces each quoted value ("…", '…', `…`) with one QUOTED character, keeping the quotes. A quote
 * opens only at the start of a word and closes only at its end, so apostrophes (can't) and lone
 * quote characters (`Unexpected token ' in JSON`) stay literal.
 */
function maskQuoted(text: string): string {
  if (text.indexOf('"') < 0 && text.indexOf("'") < 0 && text.indexOf('`') < 0) return text;
  let out = '';
  let copiedUpTo = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '"' && ch !== "'" && ch !== '`') continue;
    const before = i === 0 ? -1 : text.charCodeAt(i - 1);
    if (before !== -1 && !isSpace(before) && !QUOTE_OPENERS_AFTER.has(text[i - 1]!)) continue;
    const next = text.charCodeAt(i + 1);
    if (Number.isNaN(next) || isSpace(next)) continue;
    const limit = Math.min(text.length, i + 1 + MAX_QUOTED_CHARS);
    let close = -1;
    for (let j = i + 1; j < limit; j++) {
      const c = text.charCodeAt(j);
      if (c === 10) break;
      if (text[j] !== ch) continue;
      const after = j + 1 < text.length ? text.charCodeAt(j + 1) : -1;
      if (after === -1 || isSpace(after) || QUOTE_CLOSERS_BEFORE.has(text[j + 1]!)) {
        close = j;
        break;
      }
    }
    if (close < 0) continue;
    const request = REQUEST_LINE.exec(text.slice(i + 1, close));
    out += text.slice(copiedUpTo, i + 1) + (request ? request[0] : '') + QUOTED + ch;
    copiedUpTo = close + 1;
    i = close;
  }
  return copiedUpTo === 0 ? text : out + text.slice(copiedUpTo);
}

/** Long hex without digits (a digest that happens to be all letters is rare, but cheap to catch). */
function isHexLetters(s: string): boolean {
  if (s.length < 12) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) | 32;
    if (c < 97 || c > 102) return false;
  }
  return true;
}

/**
 * A random mixed-case id with no digit (`t_RXvWSdZq`): after an optional short prefix ending in `_`
 * or `-`, at least eight letters whose casing breaks camelCase at least twice (a capital followed by
 * fewer than two lower-case letters before the next capital). `loyaltyTier`, `XMLHttpRequest` and
 * `PrismaClientKnownRequestError` read as words.
 */
function isRandomId(s: string): boolean {
  let start = 0;
  for (let i = 0; i < Math.min(s.length, 5); i++) {
    if (s[i] === '_' || s[i] === '-') start = i + 1;
  }
  if (s.length - start < 8) return false;
  let irregular = 0;
  let sawUpper = false;
  let sawLower = false;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isUpper(c)) {
      sawUpper = true;
      const n1 = s.charCodeAt(i + 1);
      const n2 = s.charCodeAt(i + 2);
      if (isLower(n1) && !(isLower(n2) || Number.isNaN(n2))) irregular++;
    } else if (isLower(c)) {
      sawLower = true;
    } else {
      return false;
    }
  }
  return sawUpper && sawLower && irregular >= 2;
}

/** Last labels that make a dotted lower-case name a host name rather than a property or module name. */
const HOST_SUFFIXES = new Set([
  'com',
  'net',
  'org',
  'io',
  'edu',
  'gov',
  'mil',
  'int',
  'local',
  'internal',
  'lan',
  'localdomain',
  'localhost',
  'arpa',
  'cloud',
  'dev',
  'app',
  'ai',
  'co',
  'us',
  'eu',
  'uk',
  'de',
  'fr',
  'nl',
  'be',
  'ch',
  'at',
  'se',
  'no',
  'dk',
  'fi',
  'pl',
  'it',
  'es',
  'pt',
  'ru',
  'cn',
  'jp',
  'kr',
  'hk',
  'tw',
  'sg',
  'au',
  'nz',
  'ca',
  'br',
  'mx',
  'za',
  'example',
  'test',
  'invalid',
]);

/** Top-level domains that no property or module name ends in: two labels are enough (`example.com`). */
const GENERIC_HOST_SUFFIXES = new Set(['com', 'net', 'org', 'internal', 'local', 'localdomain', 'example', 'invalid']);

/**
 * A host name: at least three lower-case labels ending in a top-level domain
 * (`tax-olxuj.svc.cluster.local`), or two ending in a generic one (`example.com`), or a
 * certificate's wildcard (`*.example.org`); not a property (`mapred.task.id`) or reverse-DNS
 * identifier.
 */
function isHostname(s: string): boolean {
  const wildcard = s.startsWith('*.');
  let dots = wildcard ? 1 : 0;
  let labelLength = 0;
  let lastDot = -1;
  for (let i = wildcard ? 2 : 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (labelLength === 0) return false;
      dots++;
      labelLength = 0;
      lastDot = i;
    } else if (isLower(c) || isDigit(c) || c === 45) {
      labelLength++;
    } else {
      return false;
    }
  }
  if (labelLength === 0 || dots === 0) return false;
  const tld = s.slice(lastDot + 1);
  return dots >= 2 ? HOST_SUFFIXES.has(tld) : GENERIC_HOST_SUFFIXES.has(tld);
}

/** An API version in a path (`/v1/orders`): part of the endpoint's name. */
const API_VERSION = /^v\d{1,2}$/;

/** One path or URL segment, or an atom with no structure left to look into. */
function maskSegment(s: string): string {
  if (s.length === 0) return s;
  if (s.indexOf(QUOTED) >= 0) return MASK;
  if (hasDigit(s)) return API_VERSION.test(s) ? s : MASK;
  if (isHexLetters(s) || isRandomId(s) || isHostname(s)) return MASK;
  return s;
}

/** A path (`/var/data/<*>.pdf` → `/var/data/<*>`): each segment on its own; all masked → one mask. */
function maskSegments(s: string): string {
  let out = '';
  let start = 0;
  let segments = 0;
  let masked = 0;
  for (let i = 0; i <= s.length; i++) {
    const ch = s[i];
    if (i < s.length && ch !== '/' && ch !== '\\') continue;
    const segment = s.slice(start, i);
    if (segment.length > 0) {
      const m = maskSegment(segment);
      segments++;
      if (m === MASK) masked++;
      out += m;
    }
    if (i < s.length) out += ch;
    start = i + 1;
  }
  if (masked === 0) return s;
  return masked === segments ? MASK : out;
}

function maskUrl(s: string, schemeEnd: number): string {
  const q = s.search(/[?#]/);
  const base = q < 0 ? s : s.slice(0, q);
  const rest = base.slice(schemeEnd + 3);
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  const maskedHost = hasDigit(host) ? MASK : host;
  return base.slice(0, schemeEnd + 3) + maskedHost + maskSegments(path) + (q < 0 ? '' : s[q] + MASK);
}

/** Characters that split a word's core into atoms: `key=value`, `host:port`, `varying(32)`, `a,b`. */
const ATOM_DELIMITERS = new Set(['=', ':', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>', '|']);

function isLetters(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!(isUpper(c) || isLower(c))) return false;
  }
  return true;
}

function isStatusCode(atom: string, previousWord: string): boolean {
  if (atom.length !== 3) return false;
  const first = atom.charCodeAt(0);
  if (first < 49 || first > 53 || !isDigit(atom.charCodeAt(1)) || !isDigit(atom.charCodeAt(2))) return false;
  const word = previousWord.toLowerCase();
  return STATUS_WORDS.has(word) || word.startsWith('http/');
}

/** One atom: a word or a piece of one between delimiters. */
function maskAtom(atom: string, previousWord: string): string {
  if (atom.length === 0) return atom;
  if (atom.indexOf(QUOTED) >= 0) return MASK;
  const at = atom.indexOf('@');
  if (at > 0 && at < atom.length - 1) return MASK;
  if (atom.indexOf('/') >= 0 || atom.indexOf('\\') >= 0) return maskSegments(atom);
  if (hasDigit(atom)) return isStatusCode(atom, previousWord) || NAME_WITH_DIGIT.test(atom) ? atom : MASK;
  if (BOOLEANS.has(atom)) return MASK;
  return maskSegment(atom);
}

/**
 * Masks the core of one whitespace-separated word (its surrounding punctuation already peeled): a
 * URL by its parts, anything else atom by atom. A core whose every atom is masked (`10.0.0.1:6379`,
 * `12:00:39`) becomes one mask.
 */
function maskCore(core: string, previousWord: string): string {
  if (core.length === 0) return core;
  const scheme = core.indexOf('://');
  if (scheme > 0) {
    let urlStart = scheme;
    while (urlStart > 0 && isLetters(core[urlStart - 1]!)) urlStart--;
    if (urlStart < scheme) {
      const before = core.slice(0, urlStart);
      return (before ? maskCore(before, previousWord) : '') + maskUrl(core.slice(urlStart), scheme - urlStart);
    }
  }
  let out = '';
  let atoms = 0;
  let masked = 0;
  let previous = previousWord;
  let start = 0;
  for (let i = 0; i <= core.length; i++) {
    if (i < core.length && !ATOM_DELIMITERS.has(core[i]!)) continue;
    const atom = core.slice(start, i);
    if (atom.length > 0) {
      const m = maskAtom(atom, previous);
      atoms++;
      if (m === MASK) masked++;
      out += m;
      previous = atom;
    }
    if (i < core.length) out += core[i];
    start = i + 1;
  }
  return atoms > 0 && masked === atoms ? MASK : out;
}

interface Word {
  prefix: string;
  core: string;
  suffix: string;
  /** Part of a date: a short number, a clock time, or a month or weekday name already masked. */
  dateish: boolean;
}

/** `25`, `2005`, `04:06:05`, `3rd`: a word that can sit beside a month or weekday name in a date. */
const DATE_PART = /^(?:\d{1,4}(?:st|nd|rd|th)?|\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

function splitWord(word: string): Word {
  let start = 0;
  let end = word.length;
  while (start < end && LEADING_PUNCT.has(word[start]!)) start++;
  // A mask at the end of a word (a template masked again: `?<*>`) keeps its closing bracket.
  while (end > start && TRAILING_PUNCT.has(word[end - 1]!) && !(word[end - 1] === '>' && word.startsWith('<*', end - 3))) end--;
  return { prefix: word.slice(0, start), core: word.slice(start, end), suffix: word.slice(end), dateish: false };
}

/** A word ending in `,` `;` `:` closes a clause: the next masked word is another value. */
const endsClause = (suffix: string): boolean => /[,;:]/.test(suffix);
const separatorOf = (suffix: string): string => suffix.replace(/[)\]}>"'`]/g, '');

/**
 * The message as template tokens (no token contains whitespace): `template = tokens.join(' ')`.
 */
export function maskMessage(message: string): string[] {
  const text = maskQuoted(message.length > MAX_MESSAGE_CHARS ? message.slice(0, MAX_MESSAGE_CHARS) : message);
  const words: Word[] = [];
  let previousWord = '';
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    // Whitespace and runs of dots (`processor.......0`, `"<!DOCTYPE "...`) separate words.
    const dotRun = c === 46 && text.charCodeAt(i + 1) === 46;
    if (!isSpace(c) && !dotRun) {
      if (start < 0) start = i;
      continue;
    }
    const wordEnd = i;
    if (dotRun) while (text.charCodeAt(i + 1) === 46) i++;
    if (start < 0) continue;
    const raw = text.slice(start, wordEnd);
    start = -1;
    // A value already masked (a template masked again) or an empty one (`()` where other messages
    // print a host name in the parentheses) is a value like any other.
    if (raw === MASK || EMPTY_VALUES.has(raw)) {
      words.push({ prefix: '', core: MASK, suffix: '', dateish: false });
      previousWord = raw;
      continue;
    }
    const word = splitWord(raw);
    const dateish = isDigit(word.core.charCodeAt(0)) && DATE_PART.test(word.core);
    const core = maskCore(word.core, previousWord);
    previousWord = word.core;
    words.push({ prefix: word.prefix, core, suffix: word.suffix, dateish });
  }
  // Month and weekday names beside a date part are part of the date; a unit after a masked number
  // is part of a size or duration. Two passes, so that `Sat Jun 25` masks `Sat` once `Jun` is.
  for (let pass = 0, changed = true; pass < 2 && changed; pass++) {
    changed = false;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (w.core === MASK || w.core.length > 9) continue;
      const lower = w.core.toLowerCase();
      const prev = words[i - 1];
      const next = words[i + 1];
      const afterMask = prev !== undefined && prev.core === MASK;
      const besideDate = prev?.dateish || next?.dateish;
      if ((MONTHS_AND_DAYS.has(lower) && besideDate) || (UNITS.has(lower) && afterMask)) {
        w.core = MASK;
        w.dateish = MONTHS_AND_DAYS.has(lower);
        changed = true;
      }
    }
  }
  // A run of masked words is one value (`1190 bytes (1.16 KB)`, `Sat Jun 25 04:06:05 2005`): it
  // becomes one mask, keeping only the separator after the run.
  const tokens: string[] = [];
  let runOpen = false;
  for (const w of words) {
    const masked = w.core === MASK;
    if (masked && runOpen) {
      tokens[tokens.length - 1] = MASK + separatorOf(w.suffix);
      runOpen = !endsClause(w.suffix);
      continue;
    }
    tokens.push(w.prefix + w.core + w.suffix);
    runOpen = masked && !endsClause(w.suffix);
  }
  return tokens;
}
