// What an edit changed, for the version row and the audit event: a structural diff when both sides
// are JSON (path, before, after), else the changed lines; headers by name. Bounded, so an audit
// event of a megabyte payload stays small. Pure (no Node APIs): the edit page shows the same diff before it is sent.
import { parseJsonPayload, type HeaderChange, type PayloadChange } from './transform';
import { sameJson } from './same-json';

const MAX_CHANGES = 200;
const MAX_LINES = 200;
const MAX_VALUE_CHARS = 2_000;

export type PayloadDiff =
  | { kind: 'json'; changes: PayloadChange[]; truncated: boolean }
  | { kind: 'text'; removed: string[]; added: string[]; truncated: boolean }
  | { kind: 'bytes'; changed: boolean };

export interface EditDiff {
  payload: PayloadDiff;
  headers: HeaderChange[];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function clip(v: unknown): unknown {
  const s = JSON.stringify(v);
  return s !== undefined && s.length > MAX_VALUE_CHARS ? `${s.slice(0, MAX_VALUE_CHARS)}… (${s.length} chars)` : v;
}

const key = (base: string, k: string | number) =>
  typeof k === 'number' ? `${base}[${k}]` : /^[A-Za-z_$][\w$-]*$/.test(k) ? `${base}.${k}` : `${base}['${k}']`;

export function jsonChanges(before: unknown, after: unknown, path = '$', out: PayloadChange[] = []): PayloadChange[] {
  if (out.length > MAX_CHANGES) return out;
  if (isObject(before) && isObject(after)) {
    for (const k of Object.keys(before)) {
      if (!Object.hasOwn(after, k)) out.push({ op: 'remove', path: key(path, k), before: clip(before[k]) });
      else jsonChanges(before[k], after[k], key(path, k), out);
    }
    for (const k of Object.keys(after)) if (!Object.hasOwn(before, k)) out.push({ op: 'add', path: key(path, k), after: clip(after[k]) });
  } else if (Array.isArray(before) && Array.isArray(after)) {
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      if (i >= after.length) out.push({ op: 'remove', path: key(path, i), before: clip(before[i]) });
      else if (i >= before.length) out.push({ op: 'add', path: key(path, i), after: clip(after[i]) });
      else jsonChanges(before[i], after[i], key(path, i), out);
    }
  } else if (JSON.stringify(before) !== JSON.stringify(after)) {
    out.push({ op: 'set', path, before: clip(before), after: clip(after) });
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function text(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The lines between the common head and tail: enough to read what an edit did. */
function lineChanges(a: string, b: string): { removed: string[]; added: string[]; truncated: boolean } {
  const x = a.split('\n');
  const y = b.split('\n');
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const removed = x.slice(head, x.length - tail);
  const added = y.slice(head, y.length - tail);
  return { removed: removed.slice(0, MAX_LINES), added: added.slice(0, MAX_LINES), truncated: removed.length > MAX_LINES || added.length > MAX_LINES };
}

export function payloadDiff(before: Uint8Array, after: Uint8Array): PayloadDiff {
  const a = parseJsonPayload(before);
  const b = parseJsonPayload(after);
  if (a && b) {
    const changes = jsonChanges(a.value, b.value);
    return { kind: 'json', changes: changes.slice(0, MAX_CHANGES), truncated: changes.length > MAX_CHANGES };
  }
  const ta = text(before);
  const tb = text(after);
  if (ta !== null && tb !== null) return { kind: 'text', ...lineChanges(ta, tb) };
  return { kind: 'bytes', changed: before.length !== after.length || before.some((b, i) => b !== after[i]) };
}

export function headerChanges(before: Record<string, unknown>, after: Record<string, unknown>): HeaderChange[] {
  const out: HeaderChange[] = [];
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = Object.hasOwn(before, k) ? before[k] : null;
    const a = Object.hasOwn(after, k) ? after[k] : null;
    // Key order does not count: jsonb keeps its own, so a stored object and the same one sent back differ in it.
    if (!sameJson(b, a)) out.push({ name: k, before: clip(b), after: clip(a) });
  }
  return out;
}

export function editDiff(
  before: { payload: Uint8Array; headers: Record<string, unknown> },
  after: { payload: Uint8Array; headers: Record<string, unknown> },
): EditDiff {
  return { payload: payloadDiff(before.payload, after.payload), headers: headerChanges(before.headers, after.headers) };
}

export function isEmptyDiff(d: EditDiff): boolean {
  const p = d.payload;
  const payloadSame = p.kind === 'json' ? p.changes.length === 0 : p.kind === 'text' ? p.removed.length === 0 && p.added.length === 0 : !p.changed;
  return payloadSame && d.headers.length === 0;
}
