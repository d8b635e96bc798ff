// Masking of structured values and raw payloads: a source's sensitive JSON paths hide a value
// whole; the detectors then mask e-mails, IBANs and card numbers anywhere else.
import { isCardNumber, maskTextCounted } from './detectors';
import { JsonPathTooComplex, parseJsonPath, visitPath, type PathSegment } from './json-path';
import { scanBytes } from './scan-bytes';

/** What a value under a sensitive path becomes, whatever its type (its length is not told). */
export const MASKED = '***';

/** What a dead letter's masking is decided by: its own flag and its source's JSON paths. */
export interface PayloadPolicy {
  /** The dead letter is flagged sensitive: hide the payload whole. */
  sensitive?: boolean;
  paths: readonly (string | PathSegment[])[];
}

export type MaskedPayload =
  /** Nothing sensitive found: show the payload as it is. */
  | { state: 'clear' }
  /** Show these bytes instead (and `json`, indented, when the payload is JSON). */
  | { state: 'masked'; bytes: Buffer; json: string | null; masked: number }
  /** Nothing of it may be shown; `why` says so to the reader. */
  | { state: 'hidden'; why: string };

/** Deeper JSON is not walked (the walk recurses); with sensitive paths set, such a payload is hidden. */
export const MAX_MASK_DEPTH = 64;
/** Larger payloads are not masked value by value: with sensitive paths set, or with a detected value anywhere in them (scanned whole, streaming), they are hidden. */
export const MAX_MASK_BYTES = 4 * 1024 * 1024;

type Counter = { n: number };

// Marks a big integer literal quoted by quoteLongIntegers, so it can be written back bare.
const BIG_INTEGER = '\u0000';

function maskLeaves(v: unknown, count: Counter): unknown {
  if (typeof v === 'string' && v.startsWith(BIG_INTEGER)) {
    const digits = v.slice(1);
    if (!isCardNumber(digits)) return v;
    count.n++;
    return maskTextCounted(digits).text;
  }
  if (typeof v === 'string') {
    const m = maskTextCounted(v);
    count.n += m.masked;
    return m.text;
  }
  if (typeof v === 'number' && Number.isInteger(v) && isCardNumber(String(v))) {
    count.n++;
    return maskTextCounted(String(v)).text;
  }
  if (Array.isArray(v)) return v.map((x) => maskLeaves(x, count));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      // A key is text too (a map keyed by e-mail address): masked like a value; two keys that mask
      // alike stay two entries.
      const mk = maskTextCounted(k);
      count.n += mk.masked;
      let key = mk.text;
      while (Object.hasOwn(out, key)) key += '*';
      out[key] = maskLeaves(x, count);
    }
    return out;
  }
  return v;
}

function compile(paths: readonly (string | PathSegment[])[]): PathSegment[][] {
  return paths.map((p) => (typeof p === 'string' ? parseJsonPath(p) : p));
}

function maskPathsInPlace(root: unknown, paths: PathSegment[][], count: Counter): unknown {
  for (const segments of paths) {
    if (segments.length === 0) {
      count.n++;
      return MASKED;
    }
    try {
      visitPath(root, segments, (container, key) => {
        const slot = container as Record<string | number, unknown>;
        if (slot[key] === MASKED) return; // already hidden by another path
        slot[key] = MASKED;
        count.n++;
      });
    } catch (e) {
      // Too deep or too large to walk: fail closed, the whole value hidden.
      if (!(e instanceof JsonPathTooComplex)) throw e;
      count.n++;
      return MASKED;
    }
  }
  return root;
}

/** A copy of a structured value with the values at `paths` hidden (MASKED), the detectors not applied. */
export function maskPaths(value: unknown, paths: readonly (string | PathSegment[])[]): unknown {
  return maskPathsInPlace(structuredClone(value), compile(paths), { n: 0 });
}

/**
 * Whether a value at `path` (a concrete path: keys and indices) is hidden by one of `paths`: a probe
 * object along it, masked. Fails closed: a path that does not parse, or holds wildcards, counts as
 * hidden when any path is set.
 */
export function hiddenByPaths(path: string, paths: readonly (string | PathSegment[])[]): boolean {
  if (paths.length === 0) return false;
  let segments: PathSegment[];
  try {
    segments = parseJsonPath(path);
  } catch {
    return true;
  }
  if (segments.some((s) => s.kind !== 'key' && s.kind !== 'index')) return true;
  const PROBE = '\u0001probe';
  let probe: unknown = PROBE;
  for (const s of [...segments].reverse()) {
    if (s.kind === 'key') probe = { [s.name]: probe };
    else if (s.kind === 'index') probe = Object.assign(new Array<unknown>(s.index + 1).fill(null), { [s.index]: probe });
  }
  try {
    return !JSON.stringify(maskPaths(probe, paths)).includes('probe');
  } catch {
    return true;
  }
}

/**
 * Whether a value read at `path` must be shown masked whole: the path is at or under a sensitive
 * path, or a sensitive path may point inside it (its object would carry the sensitive child along).
 * Unsure is hidden: a wildcard or descendant step of a sensitive path may reach below anything.
 */
export function hidesValueAt(path: string, paths: readonly (string | PathSegment[])[]): boolean {
  if (hiddenByPaths(path, paths)) return true;
  let own: PathSegment[];
  try {
    own = parseJsonPath(path);
  } catch {
    return true;
  }
  return paths.some((p) => {
    let sensitive: PathSegment[];
    try {
      sensitive = typeof p === 'string' ? parseJsonPath(p) : p;
    } catch {
      return true;
    }
    for (let i = 0; i < own.length; i++) {
      const s = sensitive[i];
      const o = own[i]!;
      if (!s) return false;
      if (s.kind === 'descendant') return true;
      if (s.kind === 'wildcard' || o.kind === 'wildcard' || o.kind === 'descendant') continue;
      if (s.kind === 'key' && o.kind === 'key' && s.name === o.name) continue;
      if (s.kind === 'index' && o.kind === 'index' && s.index === o.index) continue;
      return false;
    }
    return sensitive.length > own.length;
  });
}

/** A structured value (a parsed payload, audit before/after, headers) with paths and detectors applied. */
export function maskJson(value: unknown, paths: readonly (string | PathSegment[])[] = []): unknown {
  return maskJsonCounted(value, paths).value;
}

export function maskJsonCounted(value: unknown, paths: readonly (string | PathSegment[])[] = []): { value: unknown; masked: number } {
  const count = { n: 0 };
  // Paths first, on a copy (the caller's value stays as it is), so a value hidden whole is not also
  // counted by a detector; then the detectors over what is left (maskLeaves copies again).
  const hidden = maskPathsInPlace(structuredClone(value), compile(paths), count);
  return { value: maskLeaves(hidden, count), masked: count.n };
}

/** The index of the quote that closes the JSON string opened at `open` (the end of the text if none). */
function closingQuote(json: string, open: number): number {
  for (let i = open + 1; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x5c)
      i++; // backslash: skip the escaped character
    else if (c === 0x22) return i;
  }
  return json.length;
}

/**
 * Quotes bare integer literals of 13+ digits in JSON text (with a marker), so that card numbers
 * sent as numbers survive JSON.parse exactly (they may exceed 2^53) and the detectors see their
 * digits; unquoteIntegers writes the others back as they were.
 */
function quoteLongIntegers(json: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(json, i);
      continue;
    }
    if (c >= 48 && c <= 57) {
      let j = i;
      while (j < json.length && json.charCodeAt(j) >= 48 && json.charCodeAt(j) <= 57) j++;
      const next = json[j];
      const prev = json[i - 1] ?? '';
      // Only whole integers: not the fraction or exponent of a number, not a negative number.
      if (j - i >= 13 && next !== '.' && next !== 'e' && next !== 'E' && !'.eE+-'.includes(prev || ' ')) {
        out += `${json.slice(copied, i)}"\\u0000${json.slice(i, j)}"`;
        copied = j;
      }
      i = j - 1;
    }
  }
  return copied === 0 ? json : out + json.slice(copied);
}

function unquoteIntegers(json: string): string {
  return json.replace(/"\\u0000(\d+)"/g, '$1');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether JSON text nests at most `limit` deep; scans without recursion and stops early (masking, and
 * the payload viewer, check it before parsing).
 */
export function jsonDepthWithin(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return true;
}

const masked = (bytes: Buffer, json: string | null, n: number): MaskedPayload => ({ state: 'masked', bytes, json, masked: n });

/**
 * What a reader without reveal may see of a payload. JSON: the source's sensitive paths and the
 * detectors. Other UTF-8 text, or bytes that are not UTF-8 (read as latin1, so every unmasked byte
 * stays): the detectors. Masking fails closed: a payload flagged sensitive, or one whose sensitive
 * paths cannot be located (not JSON, too deep, too large), is hidden whole.
 */
export function maskPayload(payload: Uint8Array, policy: PayloadPolicy): MaskedPayload {
  if (policy.sensitive) return { state: 'hidden', why: 'This payload is marked sensitive.' };
  const hasPaths = policy.paths.length > 0;
  let paths: PathSegment[][];
  try {
    paths = compile(policy.paths);
  } catch {
    return { state: 'hidden', why: "The source's sensitive paths cannot be read." };
  }
  if (payload.byteLength > MAX_MASK_BYTES) {
    if (hasPaths) return { state: 'hidden', why: 'The payload is too large to mask field by field.' };
    // A value the scan finds, or an escape it cannot read through, is hidden: never "clear" unscanned.
    return scanBytes(payload) === 'clear'
      ? { state: 'clear' }
      : { state: 'hidden', why: 'The payload holds sensitive values and is too large to mask value by value.' };
  }
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    if (hasPaths) return { state: 'hidden', why: 'The payload is not JSON, so its sensitive fields cannot be located.' };
    const m = maskTextCounted(buf.toString('latin1'));
    return m.masked ? masked(Buffer.from(m.text, 'latin1'), null, m.masked) : { state: 'clear' };
  }
  let parsed: unknown;
  let isJson = false;
  if (jsonDepthWithin(text, MAX_MASK_DEPTH)) {
    try {
      parsed = JSON.parse(quoteLongIntegers(text));
      isJson = true;
    } catch {
      // not JSON: handled below
    }
  } else if (hasPaths) {
    return { state: 'hidden', why: 'The payload is nested too deeply to mask field by field.' };
  }
  if (!isJson) {
    if (hasPaths) return { state: 'hidden', why: 'The payload is not JSON, so its sensitive fields cannot be located.' };
    const m = maskTextCounted(text);
    return m.masked ? masked(Buffer.from(m.text, 'utf8'), null, m.masked) : { state: 'clear' };
  }
  const m = maskJsonCounted(parsed, paths);
  if (!m.masked) return { state: 'clear' };
  const json = unquoteIntegers(JSON.stringify(m.value, null, 2));
  const compact = /\n\s/.test(text) ? json : unquoteIntegers(JSON.stringify(m.value));
  return masked(Buffer.from(compact, 'utf8'), json, m.masked);
}

/** maskPayload for a source's paths alone: the masked bytes, or the original bytes when nothing was masked. */
export function maskJsonPayload(bytes: Uint8Array, paths: readonly (string | PathSegment[])[] = []): { bytes: Buffer; masked: number } {
  const r = maskPayload(bytes, { paths });
  if (r.state === 'masked') return { bytes: r.bytes, masked: r.masked };
  if (r.state === 'hidden') return { bytes: Buffer.from(`[hidden: ${r.why}]`), masked: 1 };
  return { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), masked: 0 };
}
