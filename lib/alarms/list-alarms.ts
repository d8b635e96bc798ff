// Read side of the alarms: current states and their history, for the sources the actor may read.
import { z } from 'zod';
import { db } from '@/lib/db';
import { ALARM_KINDS, ALARM_LEVELS } from '@/lib/enums';
import { dateTime } from '@/lib/wire';
import { sourceScope, type Principal } from '@/lib/auth';
import { findSource } from '@/lib/model/find-source';
import { HINTS, type AlarmLabel } from '@/lib/model/alarm-rules';

const LEVEL_ORDER = { ALARM: 0, PENDING: 1, OK: 2 } as const;

export const AlarmView = z.object({
  sourceId: z.uuid(),
  sourceName: z.string(),
  kind: z.enum(ALARM_KINDS),
  state: z.enum(ALARM_LEVELS),
  since: dateTime,
  label: z
    .string()
    .nullable()
    .describe('e.g. "outage" or "poison" (what the errors say), "probable outage" or "probable poison" (their volume, when the errors say neither)'),
  hint: z.string().nullable().describe("The runbook's first step for the label"),
  detail: z.record(z.string(), z.unknown()).nullable(),
  evaluatedAt: dateTime.nullable(),
});
export type AlarmView = z.infer<typeof AlarmView>;
export const AlarmEventView = z.object({
  id: z.string(),
  sourceId: z.uuid(),
  sourceName: z.string(),
  kind: z.enum(ALARM_KINDS),
  from: z.enum(ALARM_LEVELS),
  to: z.enum(ALARM_LEVELS),
  at: dateTime,
  label: z.string().nullable(),
  hint: z.string().nullable(),
  detail: z.unknown().nullable(),
});
/** GET /api/v1/sources/{source}/alarms. */
export const SourceAlarmsView = z.object({
  source: z.object({ id: z.uuid(), name: z.string() }),
  states: z.array(AlarmView).describe('Current states, the raised ones first'),
  events: z.array(AlarmEventView).describe('The 20 latest transitions, newest first'),
});

/** A label of today's rules has today's hint; one they no longer give keeps the hint it was given with. */
const hintOf = (label: string | null, detail: Record<string, unknown> | null) =>
  label ? (HINTS[label as AlarmLabel] ?? (typeof detail?.hint === 'string' ? detail.hint : null)) : null;
/**
 * A quarantine alarm's hint names where the jobs are, a consumer alarm's the queue: the key and the
 * queue are the source's, not the label's.
 */
const stateHint = (label: string | null, detail: Record<string, unknown> | null) => {
  const hint = hintOf(label, detail);
  if (hint && label === 'jobs quarantined' && typeof detail?.key === 'string') return `${hint} (quarantine key: ${detail.key})`;
  if (hint && label === 'nothing consumes' && typeof detail?.queue === 'string') return `nothing consumes ${detail.queue}: ${hint}`;
  if (hint && label === 'source queue stalled' && typeof detail?.queue === 'string') return `${detail.queue}: ${hint}`;
  return hint;
};

/** Current alarm states, the raised ones first. */
export async function listAlarmStates(actor: Principal, opts: { sourceId?: string } = {}): Promise<AlarmView[]> {
  const rows = await db().alarmState.findMany({
    where: { source: sourceScope(actor, 'deadletters.read'), ...(opts.sourceId ? { sourceId: opts.sourceId } : {}) },
    include: { source: { select: { name: true } } },
  });
  return rows
    .map((a) => ({
      sourceId: a.sourceId,
      sourceName: a.source.name,
      kind: a.kind,
      state: a.state,
      since: a.since,
      label: a.label,
      hint: stateHint(a.label, a.detail as Record<string, unknown> | null),
      detail: a.detail as Record<string, unknown> | null,
      evaluatedAt: a.evaluatedAt,
    }))
    .sort((a, b) => LEVEL_ORDER[a.state] - LEVEL_ORDER[b.state] || a.sourceName.localeCompare(b.sourceName) || a.kind.localeCompare(b.kind));
}

/** Transitions, newest first, keyset-paged by id. */
export async function listAlarmEvents(actor: Principal, opts: { sourceId?: string; before?: bigint; limit?: number } = {}) {
  const sources = await db().source.findMany({ where: sourceScope(actor, 'deadletters.read'), select: { id: true, name: true } });
  const names = new Map(sources.map((s) => [s.id, s.name]));
  const ids = opts.sourceId ? sources.filter((s) => s.id === opts.sourceId).map((s) => s.id) : sources.map((s) => s.id);
  const rows = await db().alarmEvent.findMany({
    where: { sourceId: { in: ids }, ...(opts.before ? { id: { lt: opts.before } } : {}) },
    orderBy: { id: 'desc' },
    take: Math.min(opts.limit ?? 50, 200),
  });
  return rows.map((e) => ({
    ...e,
    id: e.id.toString(),
    sourceName: names.get(e.sourceId) ?? '',
    hint: stateHint(e.label, e.detail as Record<string, unknown> | null),
  }));
}

/** One source's alarms and recent transitions (the source page's banner, GET …/alarms). */
export async function sourceAlarms(actor: Principal, sourceRef: string, limit = 20) {
  const source = await findSource(actor, sourceRef, 'deadletters.read');
  const [states, events] = await Promise.all([listAlarmStates(actor, { sourceId: source.id }), listAlarmEvents(actor, { sourceId: source.id, limit })]);
  return { source, states, events };
}
