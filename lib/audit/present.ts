// An audit event as shown and exported: ids as strings, dates as ISO, and the details (selection,
// before/after, reason, result) masked for every role: the trail holds what people typed and what
// edits changed, and no reveal covers it (a dead letter's reveal is of that dead letter, on its
// page). The page, the event page and both export formats use this one shape, so an export holds
// what the page showed.
import type { AuditEvent } from '@/generated/prisma/client';
import { maskJson, maskText } from '@/lib/masking';

export interface AuditEventView {
  id: string;
  at: string;
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
  hash: string;
}

export const AUDIT_EXPORT_COLUMNS = [
  'id',
  'at',
  'actorEmail',
  'actorRole',
  'action',
  'targetType',
  'targetId',
  'teamId',
  'sourceId',
  'count',
  'reason',
  'result',
  'selection',
  'before',
  'after',
  'actorId',
  'prevHash',
  'hash',
] as const satisfies readonly (keyof AuditEventView)[];

export function auditEventView(e: AuditEvent): AuditEventView {
  const text = (s: string | null) => (s !== null ? maskText(s) : s);
  const json = (v: unknown) => (v !== null ? maskJson(v) : v);
  return {
    id: e.id.toString(),
    at: e.at.toISOString(),
    actorId: e.actorId,
    actorEmail: e.actorEmail,
    actorRole: e.actorRole,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    teamId: e.teamId,
    sourceId: e.sourceId,
    selection: json(e.selection),
    count: e.count,
    reason: text(e.reason),
    before: json(e.before),
    after: json(e.after),
    result: text(e.result),
    prevHash: e.prevHash,
    hash: e.hash,
  };
}
