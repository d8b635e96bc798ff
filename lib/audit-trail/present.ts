// An audit event as shown and exported: ids as strings, dates as ISO, and the details (selection,
// before/after, reason, result) masked for every role: the trail holds what people typed and what
// edits changed, and no reveal covers it (a dead letter's reveal is of that dead letter, on its
// page). The page, the event page and both export formats use this one shape, so an export holds
// what the page showed.
import type { AuditEvent } from '@/generated/prisma/client';
import type { HashedFields } from '@/lib/audit';
import { db } from '@/lib/db';
import { maskJson, maskStoredDiff, maskText, sensitivePathsOf, type PayloadPolicy } from '@/lib/masking';

/** The hashed fields of lib/audit, with the id, the hash and the date as text. */
export type AuditEventView = Omit<HashedFields, 'at' | 'actorVia'> & {
  id: string;
  at: string;
  /** "assistant": acted through their MCP assistant; null: in person. */
  actorVia: string | null;
  hash: string;
};

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
  'actorVia',
  'prevHash',
  'hash',
] as const satisfies readonly (keyof AuditEventView)[];

/** Events whose `after` holds payload diffs: an edit's (`diff`), a transform's (`versions[].diff`). */
const DIFF_ACTIONS = new Set(['deadletter.edit', 'redrive.transform']);

interface DiffPolicies {
  paths: Map<string, string[]>;
  sensitive: Set<string>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function diffedDeadLetters(e: AuditEvent): string[] {
  if (e.action === 'deadletter.edit') return e.targetId ? [e.targetId] : [];
  const versions = isRecord(e.after) && Array.isArray(e.after.versions) ? e.after.versions : [];
  return versions
    .map((v) => (isRecord(v) && typeof v.deadLetterId === 'string' ? v.deadLetterId : null))
    .filter((x): x is string => x !== null && /^\d{1,19}$/.test(x));
}

/** Today's policies of the sources and dead letters whose diffs these events hold. */
async function diffPolicies(events: readonly AuditEvent[]): Promise<DiffPolicies> {
  const withDiffs = events.filter((e) => DIFF_ACTIONS.has(e.action) && e.sourceId);
  const sourceIds = [...new Set(withDiffs.map((e) => e.sourceId!))];
  const ids = [...new Set(withDiffs.flatMap(diffedDeadLetters))].map(BigInt);
  const [sources, flagged] = await Promise.all([
    sourceIds.length ? db().source.findMany({ where: { id: { in: sourceIds } }, select: { id: true, sensitivePaths: true } }) : [],
    ids.length ? db().deadLetter.findMany({ where: { id: { in: ids }, sensitive: true }, select: { id: true } }) : [],
  ]);
  return { paths: new Map(sources.map((x) => [x.id, sensitivePathsOf(x.sensitivePaths)])), sensitive: new Set(flagged.map((d) => d.id.toString())) };
}

/** An edit's or a transform's `after` with its diffs masked by today's policy (they were masked at write with that day's). */
function maskDiffs(e: AuditEvent, policies: DiffPolicies): unknown {
  if (!DIFF_ACTIONS.has(e.action) || !isRecord(e.after)) return e.after;
  const paths = policies.paths.get(e.sourceId ?? '') ?? [];
  const policy = (deadLetterId: unknown): PayloadPolicy => ({ sensitive: typeof deadLetterId === 'string' && policies.sensitive.has(deadLetterId), paths });
  const after: Record<string, unknown> = { ...e.after };
  if ('diff' in after) after.diff = maskStoredDiff(after.diff, policy(e.targetId));
  if (Array.isArray(after.versions))
    after.versions = after.versions.map((v) => (isRecord(v) && 'diff' in v ? { ...v, diff: maskStoredDiff(v.diff, policy(v.deadLetterId)) } : v));
  return after;
}

/**
 * The events as every reader shows them (the trail page, an event's page, a task's history and both
 * export formats): the one way out of the trail, so none shows a diff without today's policy.
 */
export async function auditEventViews(events: readonly AuditEvent[]): Promise<AuditEventView[]> {
  const policies = await diffPolicies(events);
  return events.map((e) => auditEventView(e, policies));
}

function auditEventView(e: AuditEvent, policies: DiffPolicies): AuditEventView {
  const text = (s: string | null) => (s !== null ? maskText(s) : s);
  const json = (v: unknown) => (v !== null ? maskJson(v) : v);
  return {
    id: e.id.toString(),
    at: e.at.toISOString(),
    actorId: e.actorId,
    actorEmail: e.actorEmail,
    actorRole: e.actorRole,
    actorVia: e.actorVia,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    teamId: e.teamId,
    sourceId: e.sourceId,
    selection: json(e.selection),
    count: e.count,
    reason: text(e.reason),
    before: json(e.before),
    after: json(maskDiffs(e, policies) as AuditEvent['after']),
    result: text(e.result),
    prevHash: e.prevHash,
    hash: e.hash,
  };
}
