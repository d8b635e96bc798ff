// A declared transform of dead letters (a "bulk transform"): set, rename or remove JSON
// paths in the payload, replace a header. Pure: bytes and headers in, the copy or why it cannot
// apply out, so the preview, the task and the tests run the very same code. Paths are the masking
// JSONPath subset (lib/masking/json-path): `$.a.b`, `$.items[0]`, `$.items[*].sku`, `$..gift`.
import { z } from 'zod';
import { parseJsonPath, visitPath, JsonPathError, JsonPathTooComplex } from '@/lib/masking';
import { ownedHeader } from './broker-headers';

const path = z
  .string()
  .min(2)
  .max(500)
  .superRefine((p, ctx) => {
    try {
      if (parseJsonPath(p).length === 0) ctx.addIssue({ code: 'custom', message: 'a path below $' });
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof JsonPathError ? e.message : 'an invalid JSON path' });
    }
  });

export const transformStep = z.discriminatedUnion('op', [
  // Sets the value where the path points; the last key may be new, its parent must exist.
  z.object({ op: z.literal('set'), path, value: z.unknown() }).strict(),
  // Renames the key the path points at to `to`, in the same object.
  z.object({ op: z.literal('rename'), path, to: z.string().min(1).max(200) }).strict(),
  z.object({ op: z.literal('remove'), path }).strict(),
  // Replaces (or adds) a header; value null removes it.
  z
    .object({
      op: z.literal('header'),
      name: z
        .string()
        .min(1)
        .max(200)
        .refine((n) => !ownedHeader(n), "is the broker's or Triage's own header and cannot be changed: a redrive goes where the original came from"),
      value: z.string().max(8192).nullable(),
    })
    .strict(),
]);

export const transformSpec = z.array(transformStep).min(1).max(20);
export type TransformStep = z.infer<typeof transformStep>;
export type TransformSpec = z.infer<typeof transformSpec>;

export interface PayloadChange {
  op: 'set' | 'add' | 'remove' | 'rename';
  path: string;
  before?: unknown;
  after?: unknown;
}

export interface HeaderChange {
  name: string;
  before: unknown;
  after: unknown;
}

export type TransformResult =
  | { ok: true; payload: Buffer; headers: Record<string, unknown>; changes: PayloadChange[]; headerChanges: HeaderChange[] }
  | { ok: false; why: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The payload as JSON, or null when it is not (not UTF-8, not JSON). */
export function parseJsonPayload(bytes: Uint8Array): { value: unknown } | null {
  try {
    return { value: JSON.parse(decoder.decode(bytes)) };
  } catch {
    return null;
  }
}

/** Apply `spec` to one dead letter; a step with nothing to act on makes the whole transform not apply. */
export function applyTransform(payload: Uint8Array, headers: Record<string, unknown>, spec: TransformSpec): TransformResult {
  try {
    return applySteps(payload, headers, spec);
  } catch (e) {
    // A payload nested beyond what a path may walk: this item cannot be transformed, the others can.
    if (e instanceof JsonPathTooComplex) return { ok: false, why: e.message };
    throw e;
  }
}

function applySteps(payload: Uint8Array, headers: Record<string, unknown>, spec: TransformSpec): TransformResult {
  const needsJson = spec.some((s) => s.op !== 'header');
  let doc: unknown;
  if (needsJson) {
    const parsed = parseJsonPayload(payload);
    if (!parsed) return { ok: false, why: 'not JSON' };
    doc = parsed.value;
  }
  const changes: PayloadChange[] = [];
  const headerChanges: HeaderChange[] = [];
  const outHeaders: Record<string, unknown> = { ...headers };
  for (const step of spec) {
    if (step.op === 'header') {
      const before = outHeaders[step.name] ?? null;
      if (step.value === null) delete outHeaders[step.name];
      else outHeaders[step.name] = step.value;
      if (before !== step.value) headerChanges.push({ name: step.name, before, after: step.value });
      continue;
    }
    const segments = parseJsonPath(step.path);
    if (step.op === 'set') {
      const last = segments[segments.length - 1]!;
      const parent = segments.slice(0, -1);
      let hits = 0;
      if (last.kind === 'key') {
        // The parent must be there; the key itself may be new.
        const visitParent = (container: unknown) => {
          if (!container || typeof container !== 'object' || Array.isArray(container)) return;
          const o = container as Record<string, unknown>;
          const existed = Object.hasOwn(o, last.name);
          const before = o[last.name];
          o[last.name] = step.value;
          hits++;
          changes.push(existed ? { op: 'set', path: step.path, before, after: step.value } : { op: 'add', path: step.path, after: step.value });
        };
        if (parent.length === 0) visitParent(doc);
        else visitPath(doc, parent, (c, k) => visitParent((c as Record<string | number, unknown>)[k]));
      } else {
        visitPath(doc, segments, (c, k) => {
          const o = c as Record<string | number, unknown>;
          changes.push({ op: 'set', path: step.path, before: o[k], after: step.value });
          o[k] = step.value;
          hits++;
        });
      }
      if (hits === 0) return { ok: false, why: `path missing: ${step.path}` };
    } else {
      const found: { container: Record<string, unknown> | unknown[]; key: string | number }[] = [];
      visitPath(doc, segments, (container, key) => found.push({ container, key }));
      if (found.length === 0) return { ok: false, why: `path missing: ${step.path}` };
      // Deepest and last first, so removing array elements keeps the other indexes right.
      for (const { container, key } of found.reverse()) {
        const before = (container as Record<string | number, unknown>)[key];
        const where = segments.some((g) => g.kind === 'wildcard' || g.kind === 'descendant') ? `${step.path} (${key})` : step.path;
        if (step.op === 'remove') {
          if (Array.isArray(container)) container.splice(key as number, 1);
          else delete container[key as string];
          changes.push({ op: 'remove', path: where, before });
        } else {
          if (Array.isArray(container)) return { ok: false, why: `cannot rename an array element: ${step.path}` };
          if (Object.hasOwn(container, step.to)) return { ok: false, why: `"${step.to}" already exists beside ${step.path}` };
          // Rebuilt so the renamed key keeps its place among its siblings.
          const entries = Object.entries(container).map(([k, v]) => [k === key ? step.to : k, v] as const);
          for (const k of Object.keys(container)) delete container[k];
          for (const [k, v] of entries) container[k] = v;
          changes.push({ op: 'rename', path: where, before: key, after: step.to });
        }
      }
    }
  }
  const out = needsJson ? Buffer.from(JSON.stringify(doc)) : Buffer.from(payload);
  return { ok: true, payload: out, headers: outHeaders, changes, headerChanges };
}
