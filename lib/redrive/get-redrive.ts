// Read side of redrive tasks (never mutates): one task with its counts and drift, the list, the
// approval queue, the per-second series for the rate chart, and "did the redrive work?" per cluster.
import { z } from 'zod';
import { SOURCE_KINDS, type SourceKind } from '@/lib/model/source-kind';
import { REDRIVE_TASK_STATUSES, RULE_KINDS, type RuleKind } from '@/lib/enums';
import { isoTime } from '@/lib/wire';
import { Prisma } from '@/generated/prisma/client';
import type { RedriveTask, RedriveTaskStatus } from '@/generated/prisma/client';
import { db } from '@/lib/db';
import { authorize, sourceScope, type Principal } from '@/lib/auth';
import { notFound } from '@/lib/errors';
import { clusterCondition, filterMatches, redriveSelection } from './selection';
import { GONE_PREFIX } from '@/lib/intake/dead-letter-status';
import { lastResumedAt, outcomesAround } from '@/lib/intake/redrive-outcomes';

import { ACTIVE_REDRIVE_STATUSES } from '@/lib/enums';

/** The one declaration is ACTIVE_REDRIVE_STATUSES (lib/enums.ts); this mutable copy is what Prisma's `in` takes. */
export const ACTIVE_STATUSES: RedriveTaskStatus[] = [...ACTIVE_REDRIVE_STATUSES];

export const RedriveCountsView = z.object({
  total: z.int(),
  sent: z.int(),
  acknowledged: z.int(),
  deadAgain: z.int().describe('Came back dead: reported by the consumer, or a newer generation of the same message recorded (a connector imports it so)'),
  noDeathSeen: z
    .int()
    .describe(
      'Sent, neither acknowledged nor dead again by the end of the outcome window: final, a success for the canary and the breaker, never "acknowledged"',
    ),
  skipped: z.int().describe("Past the source maxRedrives (a loop), no longer open when the task started, or gone from the source's broker (nothing sent)"),
  failed: z.int().describe('HTTP destinations: undelivered after every retry'),
  pending: z.int().describe('Not sent yet'),
  awaitingOutcome: z.int().describe('Sent, neither acknowledged nor dead again yet, inside the outcome window'),
});
export type RedriveCounts = z.infer<typeof RedriveCountsView>;

export const REDRIVE_VERDICTS = ['worked', 'failing', 'mixed', 'no outcome yet'] as const;
export type RedriveVerdict = (typeof REDRIVE_VERDICTS)[number];

const sourceRef = z.object({ id: z.uuid(), name: z.string(), kind: z.enum(SOURCE_KINDS) });
export const CannotApplyView = z.array(z.object({ id: z.string(), messageId: z.string(), why: z.string().describe('not JSON, path missing: …') }));

export const RedriveTaskView = z.object({
  id: z.uuid(),
  status: z.enum(REDRIVE_TASK_STATUSES),
  source: sourceRef,
  destination: sourceRef.describe('Where the messages go: the source itself, or another source of its kind'),
  edit: z
    .object({
      kind: z.enum(['edit', 'transform']),
      deadLetterId: z.string().optional().describe('An edit: the dead letter whose copy is sent'),
      transform: z.unknown().optional(),
      cannotApplyCount: z.int().optional(),
      cannotApply: CannotApplyView.optional(),
    })
    .nullable()
    .describe('An edit or a bulk transform: the items send edited copies (versions of their dead letters), not the original bytes'),
  rule: z
    .object({ id: z.uuid(), name: z.string(), kind: z.enum(RULE_KINDS) })
    .nullable()
    .describe('The redrive rule that started it for its author (createdBy); null: started by hand'),
  selection: z.unknown().describe('As asked for; the items are its frozen result'),
  ratePerSecond: z.int(),
  ramp: z.object({ steps: z.array(z.int()), stepSeconds: z.int() }).nullable(),
  canary: z.boolean(),
  outcomeWindowSeconds: z.int().describe('How long a sent message is watched for a death before it counts as no death seen'),
  canaryWindowSeconds: z.int().describe('The same for the canary: the rest goes once it was acknowledged or this passed with no death seen'),
  reason: z.string().nullable(),
  pausedReason: z.string().nullable().describe('Why it is paused (by whom, or the circuit breaker / canary) or failed (its destination cannot be built)'),
  counts: RedriveCountsView,
  verdict: z.enum(REDRIVE_VERDICTS).describe('Did the redrive work? From the outcomes so far'),
  createdBy: z.string().nullable(),
  approvedBy: z.string().nullable(),
  createdAt: isoTime,
  approvedAt: isoTime.nullable(),
  startedAt: isoTime.nullable(),
  finishedAt: isoTime.nullable(),
  updatedAt: isoTime,
});
export type RedriveTaskView = z.infer<typeof RedriveTaskView>;

export function countsOf(t: Pick<RedriveTask, 'total' | 'sent' | 'acknowledged' | 'deadAgain' | 'noDeathSeen' | 'skipped' | 'failed'>): RedriveCounts {
  return {
    total: t.total,
    sent: t.sent,
    acknowledged: t.acknowledged,
    deadAgain: t.deadAgain,
    noDeathSeen: t.noDeathSeen,
    skipped: t.skipped,
    failed: t.failed,
    pending: Math.max(0, t.total - t.sent - t.skipped - t.failed),
    awaitingOutcome: Math.max(0, t.sent - t.acknowledged - t.deadAgain - t.noDeathSeen),
  };
}

/** No death seen counts as a success, as it does for the canary and the breaker. */
export function verdictOf(c: Pick<RedriveCounts, 'acknowledged' | 'deadAgain' | 'failed'> & { noDeathSeen?: number }): RedriveVerdict {
  const good = c.acknowledged + (c.noDeathSeen ?? 0);
  const bad = c.deadAgain + c.failed;
  if (good + bad === 0) return 'no outcome yet';
  if (bad === 0) return 'worked';
  if (good === 0) return 'failing';
  return 'mixed';
}

type SourceRef = { id: string; name: string; kind: SourceKind; teamId: string };
type RuleRef = { id: string; name: string; kind: string };
type TaskWithSource = RedriveTask & { source: SourceRef; destination?: SourceRef | null; rule?: RuleRef | null };
const RULE_SELECT = { select: { id: true, name: true, kind: true } } as const;

async function emails(ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (wanted.length === 0) return new Map();
  const users = await db().user.findMany({ where: { id: { in: wanted } }, select: { id: true, email: true } });
  return new Map(users.map((u) => [u.id, u.email]));
}

function view(t: TaskWithSource, who: Map<string, string>): RedriveTaskView {
  const counts = countsOf(t);
  return {
    id: t.id,
    status: t.status,
    source: { id: t.source.id, name: t.source.name, kind: t.source.kind },
    destination: t.destination
      ? { id: t.destination.id, name: t.destination.name, kind: t.destination.kind }
      : { id: t.source.id, name: t.source.name, kind: t.source.kind },
    edit: (t.edit as RedriveTaskView['edit']) ?? null,
    rule: t.rule ? { ...t.rule, kind: t.rule.kind as RuleKind } : null,
    selection: t.selection,
    ratePerSecond: t.ratePerSecond,
    ramp: t.ramp as RedriveTaskView['ramp'],
    canary: t.canary,
    outcomeWindowSeconds: Math.round(t.outcomeWindowMs / 1000),
    canaryWindowSeconds: Math.round(t.canaryWindowMs / 1000),
    reason: t.reason,
    pausedReason: t.pausedReason,
    counts,
    verdict: verdictOf(counts),
    createdBy: t.createdById ? (who.get(t.createdById) ?? null) : 'system',
    approvedBy: t.approvedById ? (who.get(t.approvedById) ?? null) : null,
    createdAt: t.createdAt.toISOString(),
    approvedAt: t.approvedAt?.toISOString() ?? null,
    startedAt: t.startedAt?.toISOString() ?? null,
    finishedAt: t.finishedAt?.toISOString() ?? null,
    updatedAt: t.updatedAt.toISOString(),
  };
}

const SOURCE_SELECT = { select: { id: true, name: true, kind: true, teamId: true } } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A task the actor may see (another team's task: 404). */
export async function findTaskInScope(
  actor: Principal,
  id: string,
  permission: 'deadletters.read' | 'deadletters.redrive' | 'redrive.approve' = 'deadletters.read',
) {
  if (!UUID.test(id)) throw notFound('No such redrive task');
  const task = await db().redriveTask.findFirst({
    where: { id, source: sourceScope(actor, permission) },
    include: { source: SOURCE_SELECT, destination: SOURCE_SELECT, rule: RULE_SELECT },
  });
  if (!task) throw notFound('No such redrive task');
  return task;
}

const OutcomeCountsView = z.object({ sent: z.int(), acknowledged: z.int(), deadAgain: z.int(), noDeathSeen: z.int(), failed: z.int() });

export const RedriveTaskDetail = RedriveTaskView.extend({
  drift: z.int().describe('Open dead letters matching the selection that arrived after it was frozen: shown, not included'),
  loops: z.int().describe("Items skipped because their dead letters were past the source's maxRedrives"),
  gone: z
    .int()
    .describe(
      "Items skipped because their message was gone from the source's broker (a Sidekiq job retried, deleted or trimmed in Sidekiq since the import): nothing was sent, so it does not run twice",
    ),
  outcomesDueAt: isoTime
    .nullable()
    .describe('Running with everything sent: when the last item awaiting an outcome becomes final, and so when the task completes unless it pauses'),
  canaryItem: z
    .object({
      messageId: z.string(),
      state: z.string(),
      sentAt: isoTime,
      outcomeAt: isoTime.nullable(),
      nextSentAt: isoTime.nullable().describe('When the first message after the canary went'),
    })
    .nullable()
    .describe('A canary task: its first message sent and its outcome'),
  sinceResume: z
    .object({
      resumedAt: isoTime,
      verdict: z.enum(REDRIVE_VERDICTS),
      counts: OutcomeCountsView.describe('What was sent since the latest resume, and its outcomes'),
      before: OutcomeCountsView.describe('What was sent before it'),
    })
    .nullable()
    .describe('A resumed task: "did it work?" for what it sent after the latest resume (a fix), apart from what came before'),
});
export type RedriveTaskDetail = z.infer<typeof RedriveTaskDetail>;

export async function getRedriveTask(actor: Principal, id: string): Promise<RedriveTaskDetail> {
  const task = await findTaskInScope(actor, id);
  const who = await emails([task.createdById, task.approvedById]);
  const [skipped] = await db().$queryRaw<{ loops: bigint; gone: bigint }[]>`
    SELECT count(*) FILTER (WHERE error LIKE 'RedriveLoop%') AS loops, count(*) FILTER (WHERE starts_with(error, ${GONE_PREFIX})) AS gone
    FROM redrive_items WHERE task_id = ${task.id}::uuid AND state = 'skipped'`;
  // The newest send awaiting an outcome (an index probe: redrive_items_awaiting_idx).
  const [last] = await db().$queryRaw<{ at: Date | null }[]>`
    SELECT max(sent_at) AS at FROM redrive_items WHERE task_id = ${task.id}::uuid AND state = 'sent'`;
  const outcomesDueAt = last?.at ? new Date(last.at.getTime() + task.outcomeWindowMs).toISOString() : null;
  return {
    ...view(task, who),
    drift: await driftOf(actor, task),
    loops: Number(skipped?.loops ?? 0),
    gone: Number(skipped?.gone ?? 0),
    outcomesDueAt,
    canaryItem: task.canary ? await canaryItemOf(task.id) : null,
    sinceResume: await sinceResumeOf(task.id),
  };
}

async function sinceResumeOf(taskId: string): Promise<RedriveTaskDetail['sinceResume']> {
  const resumedAt = await lastResumedAt(taskId);
  if (!resumedAt) return null;
  const { since, before } = await outcomesAround(taskId, resumedAt);
  return { resumedAt: resumedAt.toISOString(), verdict: verdictOf(since), counts: since, before };
}

/** The first two sends of a task, by send time: the canary, and the first message after it. */
async function canaryItemOf(taskId: string): Promise<RedriveTaskDetail['canaryItem']> {
  const sent = await db().$queryRaw<{ message_id: string; state: string; sent_at: Date; outcome_at: Date | null }[]>`
    SELECT d.message_id, i.state::text, i.sent_at, i.outcome_at FROM redrive_items i JOIN dead_letter_keys d ON d.id = i.dead_letter_id
    WHERE i.task_id = ${taskId}::uuid AND i.sent_at IS NOT NULL ORDER BY i.sent_at, i.seq LIMIT 2`;
  const [canary, next] = sent;
  if (!canary) return null;
  return {
    messageId: canary.message_id,
    state: canary.state,
    sentAt: canary.sent_at.toISOString(),
    outcomeAt: canary.outcome_at?.toISOString() ?? null,
    nextSentAt: next?.sent_at.toISOString() ?? null,
  };
}

async function driftOf(actor: Principal, task: TaskWithSource): Promise<number> {
  const selection = redriveSelection.safeParse(task.selection);
  if (!selection.success || 'ids' in selection.data) return 0;
  if ('filter' in selection.data) {
    const later = await filterMatches(actor, 'deadletters.read', selection.data.filter, { createdAfter: task.createdAt, notInTask: task.id });
    return later.filter((m) => m.source_id === task.sourceId).length;
  }
  const where = 'cluster' in selection.data ? clusterCondition(selection.data.cluster) : Prisma.sql`TRUE`;
  const [row] = await db().$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM dead_letters d
    WHERE d.source_id = ${task.sourceId}::uuid AND d.status = 'open' AND d.created_at > ${task.createdAt} AND ${where}
      AND NOT EXISTS (SELECT 1 FROM redrive_items i WHERE i.task_id = ${task.id}::uuid AND i.dead_letter_id = d.id)`;
  return Number(row?.n ?? 0);
}

export interface ListRedrivesOptions {
  status?: RedriveTaskStatus | 'active';
  source?: string;
  /** Keyset cursor: the id of the last task of the previous page. */
  after?: string;
  limit?: number;
}

export async function listRedriveTasks(actor: Principal, opts: ListRedrivesOptions = {}) {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const cursor =
    opts.after && UUID.test(opts.after) ? await db().redriveTask.findUnique({ where: { id: opts.after }, select: { createdAt: true, id: true } }) : null;
  const tasks = await db().redriveTask.findMany({
    where: {
      source: { ...sourceScope(actor, 'deadletters.read'), ...(opts.source ? { name: opts.source } : {}) },
      ...(opts.status === 'active' ? { status: { in: ACTIVE_STATUSES } } : opts.status ? { status: opts.status } : {}),
      ...(cursor ? { OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] } : {}),
    },
    include: { source: SOURCE_SELECT, destination: SOURCE_SELECT, rule: RULE_SELECT },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
  });
  const who = await emails(tasks.flatMap((t) => [t.createdById, t.approvedById]));
  const views = tasks.map((t) => view(t, who));
  return { tasks: views, next: views.length === limit ? views[views.length - 1]!.id : null };
}

/** Tasks waiting for the actor's approval: their scope for redrive.approve, not started by them. */
export async function listPendingApprovals(actor: Principal) {
  authorize(actor, 'redrive.approve');
  const tasks = await db().redriveTask.findMany({
    where: { status: 'pending_approval', source: sourceScope(actor, 'redrive.approve') },
    include: { source: SOURCE_SELECT, destination: SOURCE_SELECT, rule: RULE_SELECT },
    orderBy: { createdAt: 'asc' },
    take: 200,
  });
  const who = await emails(tasks.map((t) => t.createdById));
  return tasks.map((t) => view(t, who));
}

export const RatePointView = z.object({
  t: z.int().describe('Seconds since the start of the window (a quiet second before its first send)'),
  at: isoTime,
  sent: z.int(),
  acknowledged: z.int(),
  deadAgain: z.int(),
});
export type RatePoint = z.infer<typeof RatePointView>;
export const RedriveSeriesView = z.object({ points: z.array(RatePointView).describe('Oldest first') });

/**
 * Per-second sends and outcomes over the task's last `seconds` of activity, for the rate chart.
 * Items go out in seq order, so the recent ones are a seq range behind the frontier (an index
 * range on the primary key, not a scan of the whole task).
 */
export async function redriveSeries(actor: Principal, id: string, seconds = 300): Promise<RatePoint[]> {
  const task = await findTaskInScope(actor, id);
  const frontier = task.sent + task.skipped + task.failed;
  const fromSeq = Math.max(0, frontier - task.ratePerSecond * seconds * 2);
  const rows = await db().$queryRaw<{ at: Date; sent: bigint; acknowledged: bigint; dead: bigint }[]>`
    WITH recent AS (
      SELECT sent_at, outcome_at, state FROM redrive_items WHERE task_id = ${task.id}::uuid AND seq > ${fromSeq}),
    -- A window closing (no death seen) is no activity: the chart stays on the sends and the outcomes seen.
    last AS (SELECT max(greatest(sent_at, CASE WHEN state <> 'no_death_seen' THEN outcome_at END)) AS t FROM recent),
    events AS (
      SELECT date_trunc('second', sent_at) AS at, 1 AS sent, 0 AS ack, 0 AS dead FROM recent, last
        WHERE sent_at > last.t - make_interval(secs => ${seconds})
      UNION ALL
      SELECT date_trunc('second', outcome_at), 0, (state = 'acknowledged')::int, (state IN ('dead_again', 'failed'))::int FROM recent, last
        WHERE outcome_at > last.t - make_interval(secs => ${seconds}) AND state IN ('acknowledged', 'dead_again', 'failed'))
    SELECT at, sum(sent) AS sent, sum(ack) AS acknowledged, sum(dead) AS dead FROM events GROUP BY at ORDER BY at`;
  return denseSeconds(rows, Date.now());
}

/**
 * Every second from a quiet one before the first activity to the last (and a quiet one after it
 * once that second is over): a line needs two points, and a second without sends is a zero, not a
 * straight line drawn across the gap.
 */
function denseSeconds(rows: { at: Date; sent: bigint; acknowledged: bigint; dead: bigint }[], now: number): RatePoint[] {
  if (rows.length === 0) return [];
  const bySecond = new Map(rows.map((r) => [r.at.getTime(), r]));
  const first = rows[0]!.at.getTime() - 1000;
  const lastActive = rows[rows.length - 1]!.at.getTime();
  const last = lastActive + 2000 <= now ? lastActive + 1000 : lastActive;
  const points: RatePoint[] = [];
  for (let ms = first; ms <= last; ms += 1000) {
    const r = bySecond.get(ms);
    points.push({
      t: (ms - first) / 1000,
      at: new Date(ms).toISOString(),
      sent: Number(r?.sent ?? 0),
      acknowledged: Number(r?.acknowledged ?? 0),
      deadAgain: Number(r?.dead ?? 0),
    });
  }
  return points;
}

export const RedriveHistoryEventView = z.object({
  id: z.string(),
  at: isoTime,
  actorEmail: z.string(),
  actorRole: z.string(),
  actorVia: z.string().nullable().describe('"assistant": started or decided through the person\'s MCP assistant'),
  action: z.string(),
  count: z.int().nullable(),
  reason: z.string().nullable(),
  result: z.string().nullable(),
  after: z.unknown(),
});
/** GET /api/v1/redrives/{id}: the task and its audit history. */
export const RedriveTaskWithHistoryView = RedriveTaskDetail.extend({ history: z.array(RedriveHistoryEventView).describe('Its audit events, oldest first') });
export const RedriveTaskPageView = z.object({ tasks: z.array(RedriveTaskView), next: z.uuid().nullable().describe('`after` of the next page') });

/** The task's audit events, oldest first: who started, approved, paused, resumed, cancelled it, and why. */
export async function redriveHistory(actor: Principal, id: string) {
  const task = await findTaskInScope(actor, id);
  const events = await db().auditEvent.findMany({
    where: { targetType: 'redrive_task', targetId: task.id },
    orderBy: { id: 'asc' },
    take: 500,
    select: { id: true, at: true, actorEmail: true, actorRole: true, actorVia: true, action: true, count: true, reason: true, result: true, after: true },
  });
  return events.map((e) => ({ ...e, id: e.id.toString(), at: e.at.toISOString() }));
}

export interface ClusterRedriveOutcome {
  tasks: number;
  sent: number;
  acknowledged: number;
  deadAgain: number;
  noDeathSeen: number;
  verdict: RedriveVerdict;
}

/** "Did the redrive work?" for a cluster: the outcomes of every redriven dead letter of it. */
export async function clusterRedriveOutcome(actor: Principal, clusterId: string): Promise<ClusterRedriveOutcome> {
  if (!UUID.test(clusterId)) throw notFound('No such cluster');
  const scope = sourceScope(actor, 'deadletters.read');
  const team = scope.teamId ? Prisma.sql`AND s.team_id = ${scope.teamId}::uuid` : Prisma.empty;
  const [row] = await db().$queryRaw<{ tasks: bigint; sent: bigint; ack: bigint; dead: bigint; quiet: bigint; failed: bigint }[]>`
    SELECT count(DISTINCT i.task_id) AS tasks,
           count(*) FILTER (WHERE i.state IN ('sent', 'acknowledged', 'dead_again', 'no_death_seen')) AS sent,
           count(*) FILTER (WHERE i.state = 'acknowledged') AS ack,
           count(*) FILTER (WHERE i.state = 'dead_again') AS dead,
           count(*) FILTER (WHERE i.state = 'no_death_seen') AS quiet,
           count(*) FILTER (WHERE i.state = 'failed') AS failed
    FROM redrive_items i
    -- Through the key table to (id, dead_at): a join on id alone hashes a scan of every partition (docs/design.md, Partitioning).
    JOIN dead_letter_keys k ON k.id = i.dead_letter_id
    JOIN dead_letters d ON d.id = k.id AND d.dead_at = k.dead_at
    JOIN sources s ON s.id = d.source_id
    WHERE d.cluster_id IN (SELECT id FROM clusters WHERE id = ${clusterId}::uuid OR merged_into_id = ${clusterId}::uuid) ${team}`;
  const c = { acknowledged: Number(row?.ack ?? 0), deadAgain: Number(row?.dead ?? 0), noDeathSeen: Number(row?.quiet ?? 0), failed: Number(row?.failed ?? 0) };
  return {
    tasks: Number(row?.tasks ?? 0),
    sent: Number(row?.sent ?? 0),
    acknowledged: c.acknowledged,
    deadAgain: c.deadAgain,
    noDeathSeen: c.noDeathSeen,
    verdict: verdictOf(c),
  };
}
