// The trail's filters, shared by the page and the export so that an export holds exactly what the
// page showed: actor, action, source, target, time range; scoped to the lead's team.
import { z } from 'zod';
import type { Prisma } from '@/generated/prisma/client';
import { db } from '@/lib/db';
import { authorize, isSystem, type Principal } from '@/lib/auth';
import { AppError } from '@/lib/errors';
import { findSource } from '@/lib/model/find-source';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);
const text = (max: number) => z.preprocess(blankToUndefined, z.string().trim().max(max).optional());

// "2026-03-01" and "2026-03-01T10:00" (a datetime-local field) are read as UTC, never as the
// server's local time.
const instant = z.preprocess(
  blankToUndefined,
  z
    .string()
    .trim()
    .transform((s, ctx) => {
      const zoned = /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : /^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(s) ? `${s}Z` : s;
      const d = new Date(zoned);
      if (Number.isNaN(d.getTime())) {
        ctx.addIssue({ code: 'custom', message: 'not a date; use 2026-03-01 or 2026-03-01T10:00 (UTC)' });
        return z.NEVER;
      }
      return d;
    })
    .optional(),
);

export const auditFilterSchema = z.object({
  /** A user's e-mail or id; also matches system actors ("cli", "seed") and failed sign-ins by e-mail. */
  actor: text(320).describe("A user's e-mail or id, or a system actor"),
  /** An exact action, or a prefix ending in "." or "*" ("redrive." matches every redrive action). */
  action: text(100).describe('An exact action, or a prefix ending in "." or "*" (redrive. matches every redrive action)'),
  /** A source's name or id. */
  source: text(100).describe("A source's name or id"),
  targetType: text(100).describe('Exact target type, e.g. dead_letter or source'),
  targetId: text(200).describe('Exact target id'),
  /** from ≤ at < to */
  from: instant.describe('At or after'),
  to: instant.describe('Before'),
});

export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const AUDIT_FILTER_KEYS = ['actor', 'action', 'source', 'targetType', 'targetId', 'from', 'to'] as const;

type SearchParams = URLSearchParams | Record<string, string | string[] | undefined>;

function pick(params: SearchParams, key: string): string | undefined {
  if (params instanceof URLSearchParams) return params.get(key) ?? undefined;
  const v = params[key];
  return Array.isArray(v) ? v[0] : v;
}

/** The filter in a page's or an export's query string; throws a ZodError naming a bad field. */
export function auditFilterFromSearch(params: SearchParams): AuditFilter {
  return auditFilterSchema.parse(Object.fromEntries(AUDIT_FILTER_KEYS.map((k) => [k, pick(params, k)])));
}

/** The filter as a query string again (dates as ISO), for paging links and the export link. */
export function auditFilterToSearch(f: AuditFilter): URLSearchParams {
  const out = new URLSearchParams();
  for (const k of AUDIT_FILTER_KEYS) {
    const v = f[k];
    if (v !== undefined) out.set(k, v instanceof Date ? v.toISOString() : v);
  }
  return out;
}

/** The team a principal is limited to when reading the trail, or undefined for the whole trail. */
export function auditTeamScope(actor: Principal): string | undefined {
  const scope = authorize(actor, 'audit.read');
  return scope === 'team' && !isSystem(actor) ? actor.teamId! : undefined;
}

const unlessNotFound = (e: unknown) => {
  if (e instanceof AppError && e.code === 'not_found') return null;
  throw e;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The Prisma `where` for a filter, with the team scope in it (authorization in the query). */
export async function auditWhere(actor: Principal, f: AuditFilter): Promise<Prisma.AuditEventWhereInput> {
  const teamId = auditTeamScope(actor);
  const and: Prisma.AuditEventWhereInput[] = [];
  if (teamId) and.push({ teamId });
  if (f.actor) {
    const email = f.actor.toLowerCase();
    const user = UUID.test(f.actor) ? { id: f.actor } : await db().user.findUnique({ where: { email }, select: { id: true } });
    and.push({ OR: [...(user ? [{ actorId: user.id }] : []), { actorEmail: email }] });
  }
  if (f.action) {
    const prefix = f.action.endsWith('*') ? f.action.slice(0, -1) : f.action.endsWith('.') ? f.action : undefined;
    and.push(prefix !== undefined ? { action: { startsWith: prefix } } : { action: f.action });
  }
  if (f.source) {
    // An id is taken as it is (the events of a deleted source keep it); an unknown source name
    // matches nothing rather than everything.
    const source = UUID.test(f.source) ? { id: f.source } : await findSource(actor, f.source, 'audit.read').catch(unlessNotFound);
    and.push({ sourceId: source?.id ?? '00000000-0000-0000-0000-000000000000' });
  }
  if (f.targetType) and.push({ targetType: f.targetType });
  if (f.targetId) and.push({ targetId: f.targetId });
  if (f.from || f.to) and.push({ at: { ...(f.from ? { gte: f.from } : {}), ...(f.to ? { lt: f.to } : {}) } });
  return and.length ? { AND: and } : {};
}
