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

export function canonical(v: unknown): string {
  return JSON.stringify(normalize(v));
}

export interface HashedFields {
  at: Date;
  actorId: string | null;
  actorEmail: string;
  actorRole: string;
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
  const { at, actorId, actorEmail, actorRole, action, targetType, targetId, teamId, sourceId, selection, count, reason, before, after, result, prevHash } = e;
  const fields: HashedFields = { at, actorId, actorEmail, actorRole, action, targetType, targetId, teamId, sourceId, selection, count, reason, before, after, result, prevHash };
  return createHash('sha256').update(canonical(fields)).digest('hex');
}
