// The JSONPath subset a source's `sensitivePaths` may use: `$`, `.name`, `['name']`, `[0]`, `[*]`,
// `.*` and `..name` (any depth), e.g. "$.card.number", "$.items[*].iban", "$..email".

export type PathSegment =
  | { kind: 'key'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'wildcard' }
  | { kind: 'descendant'; name: string | null }; // null: every descendant ("..*")

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
  while (i < path.length) {
    const rest = path.slice(i);
    if (rest.startsWith('..')) {
      const after = rest.slice(2);
      if (after.startsWith('*')) {
        segments.push({ kind: 'descendant', name: null });
        i += 3;
        continue;
      }
      const m = NAME.exec(after);
      if (!m) throw new JsonPathError(path, `expected a name after ".." at ${i}`);
      segments.push({ kind: 'descendant', name: m[0] });
      i += 2 + m[0].length;
    } else if (rest.startsWith('.*')) {
      segments.push({ kind: 'wildcard' });
      i += 2;
    } else if (rest.startsWith('.')) {
      const m = NAME.exec(rest.slice(1));
      if (!m) throw new JsonPathError(path, `expected a name after "." at ${i}`);
      segments.push({ kind: 'key', name: m[0] });
      i += 1 + m[0].length;
    } else if (rest.startsWith('[*]')) {
      segments.push({ kind: 'wildcard' });
      i += 3;
    } else if (/^\[\d+\]/.test(rest)) {
      const m = /^\[(\d+)\]/.exec(rest)!;
      segments.push({ kind: 'index', index: Number(m[1]) });
      i += m[0].length;
    } else if (/^\[(['"])/.test(rest)) {
      const quote = rest[1]!;
      const end = rest.indexOf(quote + ']', 2);
      if (end < 0) throw new JsonPathError(path, `unclosed bracket at ${i}`);
      segments.push({ kind: 'key', name: rest.slice(2, end) });
      i += end + 2;
    } else {
      throw new JsonPathError(path, `unexpected "${rest[0]}" at ${i}`);
    }
  }
  return segments;
}

/** Calls `onMatch(container, key)` for every place the path points at in `value`. */
export function visitPath(
  value: unknown,
  segments: readonly PathSegment[],
  onMatch: (container: Record<string, unknown> | unknown[], key: string | number) => void,
): void {
  walk(value, 0);

  function children(v: unknown): [Record<string, unknown> | unknown[], string | number][] {
    if (Array.isArray(v)) return v.map((_, i) => [v, i]);
    if (v && typeof v === 'object') return Object.keys(v).map((k) => [v as Record<string, unknown>, k]);
    return [];
  }

  function step(container: Record<string, unknown> | unknown[], key: string | number, i: number) {
    if (i === segments.length) onMatch(container, key);
    else walk((container as Record<string | number, unknown>)[key], i);
  }

  function walk(v: unknown, i: number): void {
    const seg = segments[i];
    if (!seg || v === null || typeof v !== 'object') return;
    switch (seg.kind) {
      case 'key':
        if (!Array.isArray(v) && Object.hasOwn(v, seg.name)) step(v as Record<string, unknown>, seg.name, i + 1);
        return;
      case 'index':
        if (Array.isArray(v) && seg.index < v.length) step(v, seg.index, i + 1);
        return;
      case 'wildcard':
        for (const [c, k] of children(v)) step(c, k, i + 1);
        return;
      case 'descendant':
        for (const [c, k] of children(v)) {
          if (seg.name === null || k === seg.name) step(c, k, i + 1);
          // Keep looking below, whether or not this child matched.
          walk((c as Record<string | number, unknown>)[k], i);
        }
        return;
    }
  }
}
