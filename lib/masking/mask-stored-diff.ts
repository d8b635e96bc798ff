// A diff read back from where it was stored (a version row, an edit's or a transform's audit event)
// is masked again by the policy as it is now: the diff was masked with the policy of its day, and a
// path the source names sensitive later (or a row written before diffs were masked at write) must
// not keep its values for the readers. Only the diff's shape is known here, not the payloads: a
// change at or below a sensitive path is hidden whole, an object value has the paths below it
// masked in place, and a value cut short for the diff (whose inside cannot be read) is hidden when
// any path is set. Fails closed: a path that does not parse hides the change.
import { MASKED, hiddenByPaths, maskPaths, type PayloadPolicy } from './mask-json';
import { parseJsonPath, type PathSegment } from './json-path';

const CLIPPED = /… \(\d+ chars\)$/;

type Side = 'before' | 'after';
type Change = { path?: unknown } & Partial<Record<Side, unknown>>;

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** `value` placed at `segments` of an empty document, so paths from the root find it. */
function placed(value: unknown, segments: readonly PathSegment[]): unknown {
  let doc = value;
  for (const s of [...segments].reverse()) {
    if (s.kind === 'key') doc = { [s.name]: doc };
    else if (s.kind === 'index') doc = Object.assign(new Array<unknown>(s.index + 1).fill(null), { [s.index]: doc });
  }
  return doc;
}

function readBack(doc: unknown, segments: readonly PathSegment[]): unknown {
  let v = doc;
  for (const s of segments) {
    if (s.kind === 'key' && isRecord(v)) v = v[s.name];
    else if (s.kind === 'index' && Array.isArray(v)) v = v[s.index];
    else return MASKED;
  }
  return v;
}

function maskSide(value: unknown, segments: readonly PathSegment[], paths: PayloadPolicy['paths']): unknown {
  if (typeof value === 'string' && CLIPPED.test(value)) return MASKED;
  if (value === null || typeof value !== 'object') return value;
  try {
    return readBack(maskPaths(placed(value, segments), paths), segments);
  } catch {
    return MASKED;
  }
}

function maskChange(c: unknown, policy: PayloadPolicy): unknown {
  if (!isRecord(c)) return c;
  const change = c as Change;
  const sides = (['before', 'after'] as const).filter((k) => k in change);
  const hideAll = () => ({ ...change, ...Object.fromEntries(sides.map((k) => [k, MASKED])) });
  if (policy.sensitive) return hideAll();
  if (typeof change.path !== 'string') return hideAll();
  let segments: PathSegment[];
  try {
    segments = parseJsonPath(change.path);
  } catch {
    return hideAll();
  }
  if (segments.some((s) => s.kind !== 'key' && s.kind !== 'index') || hiddenByPaths(change.path, policy.paths)) return hideAll();
  return { ...change, ...Object.fromEntries(sides.map((k) => [k, maskSide(change[k], segments, policy.paths)])) };
}

/** A stored edit diff ({ payload: json changes | text lines | bytes, headers }) masked by `policy`. */
export function maskStoredDiff(diff: unknown, policy: PayloadPolicy): unknown {
  if (!policy.sensitive && policy.paths.length === 0) return diff;
  if (!isRecord(diff) || !isRecord(diff.payload)) return diff;
  const p = diff.payload;
  if (p.kind === 'json' && Array.isArray(p.changes)) return { ...diff, payload: { ...p, changes: p.changes.map((c) => maskChange(c, policy)) } };
  if (p.kind === 'text') {
    const why = policy.sensitive ? '(hidden: the payload is marked sensitive)' : "(hidden: not JSON, so the source's sensitive fields cannot be located)";
    const lines = (v: unknown) => (Array.isArray(v) && v.length ? [why] : []);
    return { ...diff, payload: { ...p, removed: lines(p.removed), added: lines(p.added) } };
  }
  return diff;
}
