// What a diff of an edit or a transform may carry: a value at one of the source's sensitive paths,
// or any payload value of a dead letter flagged sensitive, never reaches the version row, the audit
// event or a transform's preview (the detectors still mask the rest for readers without a reveal).
// Each change's values are read back from the two payloads with the paths hidden, so a value that
// holds a sensitive path below it (a removed object) is masked there too.
import { MASKED, maskPaths, parseJsonPath, type PathSegment, type PayloadPolicy } from '@/lib/masking';
import { clip, type EditDiff } from './diff';
import { parseJsonPayload, type PayloadChange } from './transform';

/** The value at a concrete path ($.a[0]['b']), or undefined when there is none. */
function valueAt(root: unknown, path: string): unknown {
  let segments: PathSegment[];
  try {
    segments = parseJsonPath(path);
  } catch {
    return MASKED;
  }
  let v: unknown = root;
  for (const s of segments) {
    if (v === null || typeof v !== 'object') return undefined;
    if (s.kind === 'key') v = Array.isArray(v) ? undefined : (v as Record<string, unknown>)[s.name];
    else if (s.kind === 'index') v = Array.isArray(v) ? v[s.index] : undefined;
    else return MASKED;
  }
  return v;
}

function hiddenSides(c: PayloadChange): PayloadChange {
  return { ...c, ...('before' in c ? { before: MASKED } : {}), ...('after' in c ? { after: MASKED } : {}) };
}

/** Changes between two JSON payloads with the policy applied to their values. */
export function maskChanges(changes: readonly PayloadChange[], before: Uint8Array, after: Uint8Array, policy: PayloadPolicy): PayloadChange[] {
  if (policy.sensitive) return changes.map(hiddenSides);
  if (policy.paths.length === 0) return [...changes];
  const a = parseJsonPayload(before);
  const b = parseJsonPayload(after);
  if (!a || !b) return changes.map(hiddenSides);
  let ma: unknown;
  let mb: unknown;
  try {
    ma = maskPaths(a.value, policy.paths);
    mb = maskPaths(b.value, policy.paths);
  } catch {
    return changes.map(hiddenSides);
  }
  return changes.map((c) => ({
    ...c,
    ...('before' in c ? { before: clip(valueAt(ma, c.path)) } : {}),
    ...('after' in c ? { after: clip(valueAt(mb, c.path)) } : {}),
  }));
}

/** An edit's diff with the policy applied: JSON changes as above, text lines hidden whole. */
export function maskEditDiff(diff: EditDiff, before: Uint8Array, after: Uint8Array, policy: PayloadPolicy): EditDiff {
  const p = diff.payload;
  if (p.kind === 'json') return { ...diff, payload: { ...p, changes: maskChanges(p.changes, before, after, policy) } };
  if (p.kind === 'text' && (policy.sensitive || policy.paths.length > 0)) {
    const why = policy.sensitive ? '(hidden: the payload is marked sensitive)' : "(hidden: not JSON, so the source's sensitive fields cannot be located)";
    return { ...diff, payload: { ...p, removed: p.removed.length ? [why] : [], added: p.added.length ? [why] : [] } };
  }
  return diff;
}
