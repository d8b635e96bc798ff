// A source's grouping rules, applied on top of the fingerprint from outside it: the
// fingerprint stays the pure function of one error (fingerprint.ts), and a rule's output — the
// values of payload paths and headers it groups by, and token positions it treats as variable —
// is folded into the key here. Clusters stay keyed by fingerprint: a dead letter of a source with
// rules is stored under hash(fingerprint key, rule part). Only sources with a payload rule parse
// payloads on the write path.
import { hash } from 'node:crypto';
import { z } from 'zod';
import { parseJsonPath, visitPath, JsonPathError, JsonPathTooComplex, type PathSegment } from '@/lib/masking/json-path';
import { hidesValueAt, MASKED } from '@/lib/masking/mask-json';
import { maskedHead } from '@/lib/masking/mask-dead-letter-text';
import { clusterShape } from './cluster-shape';
import { clusterKey, type Fingerprint } from './fingerprint';
import { MASK } from './mask-message';

const jsonPath = z
  .string()
  .min(2)
  .max(200)
  .refine(
    (p) => {
      try {
        parseJsonPath(p);
        return true;
      } catch (e) {
        if (e instanceof JsonPathError) return false;
        throw e;
      }
    },
    { message: 'a JSON path such as $.type or $.order.kind' },
  );

export const groupByField = z.discriminatedUnion('field', [
  z.object({ field: z.literal('payload'), path: jsonPath }).strict(),
  z.object({ field: z.literal('header'), name: z.string().min(1).max(200) }).strict(),
]);
export type GroupByField = z.infer<typeof groupByField>;

export const groupingRulesSchema = z
  .object({
    groupBy: z.array(groupByField).max(5).default([]).describe('Added to the default grouping (error type, template, top frame)'),
    variablePositions: z
      .array(z.int().min(0).max(199))
      .max(20)
      .default([])
      .describe('Token positions of the template (0-based) treated as variable: masked as <*> before keying'),
  })
  .strict();
export type GroupingRules = z.infer<typeof groupingRulesSchema>;

/** The rules of a source as stored (jsonb, possibly null), parsed once per version. */
export interface SourceGrouping {
  version: number;
  rules: GroupingRules | null;
  /** The source's sensitive paths: a group-by value under one is shown as MASKED in "grouped by". */
  sensitivePaths?: readonly string[];
}

export const NO_GROUPING: SourceGrouping = { version: 0, rules: null };

/** Parse stored rules; a row written by an older shape is treated as no rules rather than failing ingest. */
export function groupingOf(stored: unknown, version: number): SourceGrouping {
  if (stored == null) return { version, rules: null };
  const parsed = groupingRulesSchema.safeParse(stored);
  if (!parsed.success) return { version, rules: null };
  const r = parsed.data;
  return { version, rules: r.groupBy.length || r.variablePositions.length ? r : null };
}

export const hasPayloadRule = (g: SourceGrouping) => g.rules?.groupBy.some((f) => f.field === 'payload') ?? false;

const MAX_VALUE_CHARS = 200;

/**
 * A field's value as a key part and a label: without NUL (which Postgres text cannot hold, and would
 * refuse the whole batch), and a long one cut after masking (a card number cut in half is no longer
 * what the detectors find when the label is read).
 */
function groupText(raw: string): string {
  const text = raw.includes('\u0000') ? raw.replaceAll('\u0000', '') : raw;
  return text.length > MAX_VALUE_CHARS ? (maskedHead(text, MAX_VALUE_CHARS) ?? '') : text;
}
const MISSING = '∅';
const NOT_JSON = '(not JSON)';

const pathCache = new Map<string, PathSegment[]>();
function segmentsOf(path: string): PathSegment[] {
  let s = pathCache.get(path);
  if (!s) pathCache.set(path, (s = parseJsonPath(path)));
  return s;
}

/** The first value at `path` in a parsed payload, as text (strings bare, others as JSON); ∅ when absent. */
export function valueAtPath(parsed: unknown, path: string): string {
  let found: unknown;
  let seen = false;
  try {
    visitPath(parsed, segmentsOf(path), (container, key) => {
      if (seen) return;
      seen = true;
      found = (container as Record<string | number, unknown>)[key];
    });
  } catch (e) {
    // A payload built to make the walk deep groups as one without the value, never stalls ingest.
    if (e instanceof JsonPathTooComplex) return MISSING;
    throw e;
  }
  if (!seen || found === undefined) return MISSING;
  const text = typeof found === 'string' ? found : JSON.stringify(found);
  return groupText(text);
}

/** A payload parsed as JSON, or a marker that it is not JSON (rules still group it, as one value). */
export function parsePayload(payload: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
  } catch {
    return NOT_JSON_MARK;
  }
}
const NOT_JSON_MARK = Symbol('not JSON');

export function headerValue(headers: Record<string, unknown> | undefined, name: string): string {
  const lower = name.toLowerCase();
  const key = headers && Object.keys(headers).find((k) => k.toLowerCase() === lower);
  const v = key === undefined ? undefined : headers![key];
  if (v === undefined || v === null) return MISSING;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return groupText(text);
}

/** One field's value of a dead letter: what a split or a rule groups by. */
export function fieldValue(field: GroupByField, d: { payload: () => unknown; headers: Record<string, unknown> | undefined }): string {
  if (field.field === 'header') return headerValue(d.headers, field.name);
  const parsed = d.payload();
  return parsed === NOT_JSON_MARK ? NOT_JSON : valueAtPath(parsed, field.path);
}

export const fieldLabel = (f: GroupByField) => (f.field === 'payload' ? f.path : `header ${f.name}`);

/** The rule part of a dead letter: each group-by field with its value, in the rule's order. */
export function rulePart(rules: GroupingRules, d: { payload: Uint8Array; headers?: Record<string, unknown> }): string {
  if (rules.groupBy.length === 0) return '';
  let parsed: unknown;
  const payload = () => (parsed === undefined ? (parsed = parsePayload(d.payload)) : parsed);
  return rules.groupBy.map((f) => `${fieldLabel(f)}=${fieldValue(f, { payload, headers: d.headers })}`).join('\u0001');
}

/** The template with the rule's variable positions masked (a run of masks stays one mask, as the masker writes it). */
export function maskPositions(template: string, positions: readonly number[]): string {
  if (positions.length === 0) return template;
  const tokens = template.split(' ');
  for (const p of positions) if (p < tokens.length) tokens[p] = MASK;
  return tokens.filter((t, i) => !(t === MASK && tokens[i - 1] === MASK)).join(' ');
}

export interface RuledFingerprint {
  key: string;
  /** The rule part shown on the cluster ("$.type=order.created"), null without group-by rules. */
  groupedBy: string | null;
  template: string;
  /** The frame label stored on the cluster (display). */
  frame: string | null;
  shape: string;
}

const frameLabel = (fp: Fingerprint) => (fp.topFrame ? `${fp.topFrame.fn} (${fp.topFrame.file})` : null);

/**
 * The key a dead letter is stored under. Without rules: the fingerprint as it is. With rules: a
 * keyed hash over the fingerprint key (re-keyed over the masked template when positions are
 * variable) and the rule part, and a shape that includes the rule part, so the template merger
 * only finds kin with the same rule values.
 */
export function applyGrouping(
  fp: Fingerprint,
  type: string,
  grouping: SourceGrouping,
  d: { payload: Uint8Array; headers?: Record<string, unknown> },
): RuledFingerprint {
  const frame = frameLabel(fp);
  const rules = grouping.rules;
  if (!rules) return { key: fp.key, groupedBy: null, template: fp.template, frame, shape: clusterShape(type, frame) };
  const template = maskPositions(fp.template, rules.variablePositions);
  const base = template === fp.template ? fp.key : clusterKey(type.trim(), template, fp.topFrame);
  const part = rulePart(rules, d);
  if (!part) return { key: base, groupedBy: null, template, frame, shape: clusterShape(type, frame) };
  const key = hash('sha256', `rule\u0001${base}\u0001${part}`, 'hex').slice(0, 16);
  return { key, groupedBy: shownPart(rules, part, grouping.sensitivePaths ?? []), template, frame, shape: clusterShape(type, `${frame ?? ''}\u0001${part}`) };
}

/**
 * The rule part as the cluster's "grouped by" shows it: a payload value at one of the source's
 * sensitive paths is MASKED (the key above keeps the value; only the label hides it). The detectors
 * apply when it is read (lib/clustering list and get).
 */
function shownPart(rules: GroupingRules, part: string, paths: readonly string[]): string {
  const values = part.split('\u0001');
  return rules.groupBy
    .map((f, i) => {
      const v = values[i] ?? '';
      return f.field === 'payload' && hidesValueAt(f.path, paths) ? `${fieldLabel(f)}=${MASKED}` : v;
    })
    .join(', ');
}
