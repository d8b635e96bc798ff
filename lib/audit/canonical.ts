// Canonical encoding of an audit event for hashing: JSON with sorted keys, dates as ISO strings,
// bigints as decimal strings. jsonb reorders keys on the way back, so order must not matter.
import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

function normalize(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(normalize);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = normalize(x);
    }
    return out;
  }
  return v;
}

const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A string as Postgres stores it: UTF-8 has no unpaired surrogate (the driver writes U+FFFD) and
 * text and jsonb refuse NUL, so both become U+FFFD here, before the hash. The doors refuse such
 * text (lib/text-input.ts); this keeps the chain whole for anything that reaches it another way.
 */
export function storableText(s: string): string {
  return s.replace(UNPAIRED, '\uFFFD').replaceAll('\u0000', '\uFFFD');
}

/**
 * A value as it comes back from a jsonb column: JSON's own conversions (dates to ISO strings,
 * undefined dropped, non-finite numbers to null), bigints as decimal strings, and every string
 * and key storable. null for nothing.
 */
export function storableJson(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  if (text === undefined) return null;
  return JSON.parse(text, function (this: unknown, _k, x: unknown) {
    if (typeof x === 'string') return storableText(x);
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) {
      let clean = true;
      for (const k of Object.keys(x)) if (storableText(k) !== k) clean = false;
      if (!clean) return Object.fromEntries(Object.entries(x).map(([k, y]) => [storableText(k), y]));
    }
    return x;
  });
}

export function canonical(v: unknown): string {
  return JSON.stringify(normalize(v));
}

export interface HashedFields {
  at: Date;
  actorId: string | null;
  actorEmail: string;
  actorRole: string;
  /** "assistant": acted through their MCP assistant. Absent or null: in person (not hashed). */
  actorVia?: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  teamId: string | null;
  sourceId: string | null;
  selection: unknown;
  count: number | null;
  reason: string | null;
  before: unknown;
  after: unknown;
  result: string | null;
  prevHash: string;
}

/** The hash of an event; takes only the hashed fields, so a whole row (with id and hash) may be passed. */
export function eventHash(e: HashedFields): string {
  const {
    at,
    actorId,
    actorEmail,
    actorRole,
    actorVia,
    action,
    targetType,
    targetId,
    teamId,
    sourceId,
    selection,
    count,
    reason,
    before,
    after,
    result,
    prevHash,
  } = e;
  const fields: HashedFields = {
    at,
    actorId,
    actorEmail,
    actorRole,
    action,
    targetType,
    targetId,
    teamId,
    sourceId,
    selection,
    count,
    reason,
    before,
    after,
    result,
    prevHash,
  };
  // Only when set: every event written before the column hashes as it did.
  if (actorVia != null) fields.actorVia = actorVia;
  return createHash('sha256').update(canonical(fields)).digest('hex');
}
