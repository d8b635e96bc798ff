// What a split teaches the write path: a cluster a person split by a field keeps, in split_by, the
// field and which part each split-off value went to, so a new arrival counted into that cluster is
// routed to the part of its value (and on through a part split again). The kept part's values and
// values never seen stay where they are. Values are stored as digests, not as text: a payload value
// may be one a source marks sensitive, and only the readers' masking may show those.
import { hash } from 'node:crypto';
import { z } from 'zod';
import { fieldValue, groupByField, parsePayload } from './grouping-rules';
import { topInAppFrame } from './stack-frame';

export const splitField = z.union([groupByField, z.object({ field: z.literal('errorType') }).strict(), z.object({ field: z.literal('topFrame') }).strict()]);
export type SplitField = z.infer<typeof splitField>;

/** One split of a cluster: its field, and each split-off value's digest with the part it went to. */
const SplitRoute = z.object({ by: splitField, parts: z.record(z.string(), z.uuid()) });
export type SplitRoute = z.infer<typeof SplitRoute>;
const splitRoutes = z.array(SplitRoute);

/** The splits stored on a cluster, in the order made; a row of another shape routes nothing rather than failing ingest. */
export function splitRoutesOf(stored: unknown): SplitRoute[] {
  const parsed = splitRoutes.safeParse(stored ?? []);
  return parsed.success ? parsed.data : [];
}

export const valueDigest = (value: string) => hash('sha256', `split\u0001${value}`, 'hex').slice(0, 32);

/** What a split reads of a dead letter; the payload is parsed only when a split by a payload path asks. */
export interface SplitSubject {
  error_type: string | null;
  reason: string;
  error_stack: string | null;
  headers: Record<string, unknown> | null;
  payload: () => unknown;
}

/** The value of the split's field for one dead letter: the same for its members at the split and for new arrivals. */
export function splitValue(by: SplitField, d: SplitSubject): string {
  if (by.field === 'errorType') return d.error_type ?? d.reason;
  if (by.field === 'topFrame') {
    const f = topInAppFrame(d.error_stack);
    return f ? `${f.fn} (${f.file})` : '(no in-app frame)';
  }
  return fieldValue(by, { payload: d.payload, headers: d.headers ?? undefined });
}

export interface SplitNode {
  routes: SplitRoute[];
  mergedInto: string | null;
}

/**
 * The cluster a new arrival counted into `cluster` belongs in: the part of its value, split after
 * split (the first split that knows the value wins, as the first split moved those members first),
 * a part merged into another followed to it. `nodes` holds the split clusters and their parts; a
 * part it does not hold (gone since) is not routed to.
 */
export function routeThroughSplits(cluster: string, nodes: ReadonlyMap<string, SplitNode>, subject: SplitSubject): string {
  let at = cluster;
  const seen = new Set([at]);
  for (;;) {
    const routes = nodes.get(at)?.routes ?? [];
    let next: string | undefined;
    for (const route of routes) {
      next = route.parts[valueDigest(splitValue(route.by, subject))];
      if (next) break;
    }
    const part = next === undefined ? undefined : nodes.get(next);
    if (!part) return at;
    const to = part.mergedInto ?? next!;
    if (!nodes.has(to)) return at;
    // A part merged back into a cluster it came from: that cluster is where it belongs.
    if (seen.has(to)) return to;
    seen.add(to);
    at = to;
  }
}

/** A subject of a row about to be written: the payload parsed once, on first ask. */
export function lazySubject(d: { error_type: string | null; reason: string; error_stack: string | null; headers: string; payload: Uint8Array }): SplitSubject {
  let parsed: unknown;
  let headers: Record<string, unknown> | null | undefined;
  return {
    error_type: d.error_type,
    reason: d.reason,
    error_stack: d.error_stack,
    get headers() {
      return headers === undefined ? (headers = JSON.parse(d.headers) as Record<string, unknown> | null) : headers;
    },
    payload: () => (parsed === undefined ? (parsed = parsePayload(d.payload)) : parsed),
  };
}
