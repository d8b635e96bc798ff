// The JSONPath subset a source's `sensitivePaths` may use: `$`, `.name`, `['name']`, `[0]`, `[*]`,
// `.*` and `..name` (any depth), e.g. "$.card.number", "$.items[*].iban", "$..email".

export type PathSegment = { kind: 'key'; name: string } | { kind: 'index'; index: number } | { kind: 'wildcard' } | { kind: 'descendant'; name: string | null }; // null: every descendant ("..*")

export class JsonPathError extends Error {
  constructor(path: string, why: string) {
    super(`Invalid JSON path "${path}": ${why}`);
    this.name = 'JsonPathError';
  }
}

const NAME = /^[A-Za-z_$][\w$-]*/;

export function parseJsonPath(path: string): PathSegment[] {
  if (!path.startsWith('$')) throw new JsonPathError(path, 'must start with $');
  const segments: PathSegment[] = [];
  let i = 1;
  // `.name` and `..name`: the name after the dots.
  const named = (rest: string, dots: string, kind: 'key' | 'descendant') => {
    const m = NAME.exec(rest.slice(dots.length));
    if (!m) throw new JsonPathError(path, `expected a name after "${dots}" at ${i}`);
    segments.push({ kind, name: m[0] });
    i += dots.length + m[0].length;
  };
  while (i < path.length) {
    const rest = path.slice(i);
    if (rest.startsWith('..*')) {
      segments.push({ kind: 'descendant', name: null });
      i += 3;
    } else if (rest.startsWith('..')) {
      named(rest, '..', 'descendant');
    } else if (rest.startsWith('.*')) {
      segments.push({ kind: 'wildcard' });
      i += 2;
    } else if (rest.startsWith('.')) {
      named(rest, '.', 'key');
    } else if (rest.startsWith('[*]')) {
      segments.push({ kind: 'wildcard' });
      i += 3;
    } else if (/^\[\d+\]/.test(rest)) {
      const m = /^\[(\d+)\]/.exec(rest)!;
      segments.push({ kind: 'index', index: Number(m[1]) });
      i += m[0].length;
    } else if (/^\[(['"])/.test(rest)) {
      const quote = rest[1]!;
      const end = rest.indexOf(`${quote}]`, 2);
      if (end < 0) throw new JsonPathError(path, `unclosed bracket at ${i}`);
      segments.push({ kind: 'key', name: rest.slice(2, end) });
      i += end + 2;
    } else {
      throw new JsonPathError(path, `unexpected "${rest[0]}" at ${i}`);
    }
  }
  return segments;
}

/** A path walk that would take more than this many steps is refused (JsonPathTooComplex). */
export const MAX_PATH_STEPS = 200_000;

/** A path walk over a value built to make it deep or wide beyond MAX_PATH_STEPS. */
export class JsonPathTooComplex extends Error {
  constructor() {
    super(`The value is too deeply nested or too large for this JSON path (over ${MAX_PATH_STEPS.toLocaleString('en')} steps)`);
    this.name = 'JsonPathTooComplex';
  }
}

type Slot = Record<string | number, unknown>;

/**
 * Calls `onMatch(container, key)` for every place the path points at in `value`, in document
 * order. Iterative, each (node, segment) visited once and at most MAX_PATH_STEPS steps: a hostile
 * payload (200,000 nested brackets, "$..*..*..*") cannot overflow the stack or take seconds on the
 * ingest path; over the budget it throws JsonPathTooComplex and the caller fails closed.
 */
export function visitPath(
  value: unknown,
  segments: readonly PathSegment[],
  onMatch: (container: Record<string, unknown> | unknown[], key: string | number) => void,
): void {
  // A task: walk the value in container[key] (read when the task runs: onMatch may have replaced it)
  // from segment i, or report a match.
  type Task = { match: boolean; container: Slot; key: string | number; i: number };
  const root: Slot = { $: value };
  const stack: Task[] = [{ match: false, container: root, key: '$', i: 0 }];
  const seen = new Map<object, Set<number>>();
  let steps = 0;

  const step = (out: Task[], container: Slot, key: string | number, i: number) => out.push({ match: i === segments.length, container, key, i });

  while (stack.length > 0) {
    if (++steps > MAX_PATH_STEPS) throw new JsonPathTooComplex();
    const t = stack.pop()!;
    if (t.match) {
      onMatch(t.container as Record<string, unknown> | unknown[], t.key);
      continue;
    }
    const v = t.container[t.key];
    const seg = segments[t.i];
    if (!seg || v === null || typeof v !== 'object') continue;
    let at = seen.get(v);
    if (!at) seen.set(v, (at = new Set()));
    if (at.has(t.i)) continue;
    at.add(t.i);
    const next: Task[] = [];
    const keys: (string | number)[] = Array.isArray(v) ? v.map((_, k) => k) : Object.keys(v);
    switch (seg.kind) {
      case 'key':
        if (!Array.isArray(v) && Object.hasOwn(v, seg.name)) step(next, v as Slot, seg.name, t.i + 1);
        break;
      case 'index':
        if (Array.isArray(v) && seg.index < v.length) step(next, v as unknown as Slot, seg.index, t.i + 1);
        break;
      case 'wildcard':
        for (const k of keys) step(next, v as Slot, k, t.i + 1);
        break;
      case 'descendant':
        for (const k of keys) {
          if (seg.name === null || k === seg.name) step(next, v as Slot, k, t.i + 1);
          // Keep looking below, whether or not this child matched.
          next.push({ match: false, container: v as Slot, key: k, i: t.i });
        }
        break;
    }
    for (let n = next.length - 1; n >= 0; n--) stack.push(next[n]!);
  }
}
