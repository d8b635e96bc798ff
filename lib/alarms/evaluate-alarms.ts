// The alarm evaluation the maintenance worker runs every 15 s: refresh each source's age stats,
// look at the last hour's arrivals (per cluster and per error class), move every alarm one step through OK / PENDING / ALARM, record
// the transitions and notify the source team's webhooks of each, in one transaction.
import type postgres from 'postgres';
import { db, pg } from '@/lib/db';
import { env } from '@/lib/env';
import { maskText } from '@/lib/masking';
import { systemClock, type Clock } from '@/lib/clock';
import { refreshAgeStats, type AgeStats } from '@/lib/sla/age-stats';
import { DEAD_LETTER_STATUSES } from '@/lib/enums';
import type { ErrorClass } from '@/lib/model/error-classes';
import { alarmMessage, type AlarmTransition } from '@/lib/notifications/alarm-message';
import { isConnectorKind } from '@/lib/connectors/types';
import { staleness } from '@/lib/connectors/source-queue-view';
import { recordWaves } from '@/lib/redrive-rules/waves';
import { quarantineKey, quarantinedCounts } from '@/lib/runtime/quarantine';
import { createDeliveries, enqueueAfterCommit, type DeliveryRef } from '@/lib/notifications/deliveries';
import {
  CONFIRM_MS,
  HINTS,
  RULES,
  SOURCE_ALARM_KINDS,
  classify,
  connectorDownForMs,
  describe,
  keptLabel as keptLabelOf,
  nextState,
  sourceQueueProblem,
  targetLevel,
  type AlarmKind,
  type AlarmLabel,
  type AlarmLevel,
  type RecentArrivals,
  type SourceObservation,
} from '@/lib/model/alarm-rules';

// Serialises evaluations: two workers (or a worker and a test) never both move the same alarm.
const ALARMS_LOCK_KEY = 7_201_000_007;

/** The rate alarm's window (ALARM_RATE_WINDOW_SECONDS, 5 minutes by default). */
export function rateWindowMs(): number {
  return env().ALARM_RATE_WINDOW_SECONDS * 1000;
}

/** The cluster key of a dead letter without one in dead_letter_arrivals (its key columns cannot be NULL). */
const NO_CLUSTER = '00000000-0000-0000-0000-000000000000';
/** dead_letter_arrivals keeps this much before the evaluation's time (the triggers count two hours). */
const ARRIVALS_KEPT = '2 hours';

/**
 * Arrivals per source over the classify window, by rate window and by cluster: the same figures as
 * counting the window's dead letters (any status: a dead letter redriven a minute after it arrived
 * still arrived), read from dead_letter_arrivals (per second of death, kept by triggers) for the
 * whole seconds inside a window and from dead_letters only for the seconds a window's edge falls in.
 * In a storm that is a few thousand rows a cycle instead of every dead letter of the hour.
 */
export async function recentArrivals(now: Date, sql: postgres.Sql = pg()): Promise<Map<string, RecentArrivals>> {
  const windowMs = rateWindowMs();
  const windows = Math.ceil(RULES.classifyWindowMs / windowMs);
  const nowMs = now.getTime();
  const fromMs = nowMs - RULES.classifyWindowMs; // exclusive, as `now` is inclusive
  // The seconds holding an edge: the window's ends and each rate window's start inside it.
  const edges = new Set([nowMs, fromMs]);
  for (let k = 1; k < windows; k++) if (nowMs - k * windowMs > fromMs) edges.add(nowMs - k * windowMs);
  const edgeSeconds = [...new Set([...edges].map((ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString()))];
  const firstSecond = new Date(Math.floor(fromMs / 1000) * 1000);
  const lastSecond = new Date(Math.floor(nowMs / 1000) * 1000);
  await drainArrivals(sql, now);
  const rows = await sql<{ source_id: string; cluster_id: string | null; error_class: ErrorClass; w: number; n: number }[]>`
    SELECT source_id, NULLIF(cluster_id, ${NO_CLUSTER}::uuid) AS cluster_id, error_class,
      floor(extract(epoch FROM (${now}::timestamptz - second)) * 1000 / ${windowMs})::int AS w, sum(count)::int AS n
    FROM dead_letter_arrivals
    WHERE second >= ${firstSecond}::timestamptz AND second <= ${lastSecond}::timestamptz AND second <> ALL(${edgeSeconds}::timestamptz[])
    GROUP BY 1, 2, 3, 4 HAVING sum(count) <> 0
    UNION ALL
    SELECT d.source_id, d.cluster_id, COALESCE(d.error_class, 'unknown') AS error_class,
      floor(extract(epoch FROM (${now}::timestamptz - d.dead_at)) * 1000 / ${windowMs})::int AS w, count(*)::int AS n
    FROM unnest(${edgeSeconds}::timestamptz[]) AS e(second)
    -- One index range per edge second (status, dead_at): a join instead scanned the whole hour.
    -- OFFSET 0 keeps the planner from flattening the lateral subquery back into that join.
    CROSS JOIN LATERAL (
      SELECT source_id, cluster_id, error_class, dead_at FROM dead_letters
      WHERE dead_at >= e.second AND dead_at < e.second + interval '1 second'
        AND status = ANY(${DEAD_LETTER_STATUSES as unknown as string[]}::"DeadLetterStatus"[])
        AND dead_at > ${now}::timestamptz - ${`${RULES.classifyWindowMs} milliseconds`}::interval AND dead_at <= ${now}::timestamptz
      OFFSET 0) d
    GROUP BY 1, 2, 3, 4`;
  const out = new Map<string, Required<RecentArrivals> & { byCluster: Map<string | null, number> }>();
  for (const r of rows) {
    let a = out.get(r.source_id);
    if (!a) {
      const zeros = () => new Array<number>(windows).fill(0);
      a = { windowCounts: zeros(), transientCounts: zeros(), clusterCounts: [], classCounts: { transient: 0, permanent: 0, unknown: 0 }, byCluster: new Map() };
      out.set(r.source_id, a);
    }
    const w = Math.min(r.w, windows - 1);
    a.windowCounts[w]! += r.n;
    if (r.error_class === 'transient') a.transientCounts[w]! += r.n;
    a.classCounts[r.error_class] += r.n;
    a.byCluster.set(r.cluster_id, (a.byCluster.get(r.cluster_id) ?? 0) + r.n);
  }
  for (const a of out.values()) a.clusterCounts = [...a.byCluster].filter(([, count]) => count !== 0).map(([clusterId, count]) => ({ clusterId, count }));
  return out;
}

/**
 * Folds the pending differences into dead_letter_arrivals and forgets the seconds no evaluation
 * reads any more (two hours before this evaluation's time, or before now when that is earlier).
 * Safe to run concurrently: each pending row is taken once, and the sums commute.
 */
async function drainArrivals(sql: postgres.Sql, now: Date): Promise<void> {
  await sql`
    WITH taken AS (DELETE FROM dead_letter_arrival_pending RETURNING second, source_id, cluster_id, error_class, count)
    INSERT INTO dead_letter_arrivals (second, source_id, cluster_id, error_class, count)
    SELECT second, source_id, cluster_id, error_class, sum(count) FROM taken GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (second, source_id, cluster_id, error_class) DO UPDATE SET count = dead_letter_arrivals.count + EXCLUDED.count`;
  await sql`DELETE FROM dead_letter_arrivals WHERE second < LEAST(${now}::timestamptz, now()) - ${ARRIVALS_KEPT}::interval`;
}

export interface EvaluationResult {
  sources: number;
  transitions: AlarmTransition[];
}

interface StateRow {
  source_id: string;
  kind: AlarmKind;
  state: AlarmLevel;
  since: string;
  label: string | null;
  detail: Record<string, unknown>;
  evaluated_at: string;
}

/** The source queue's figures an alarm row and its notification carry. */
function sourceQueueDetail(o: SourceObservation) {
  const q = o.sourceQueue;
  return {
    queue: q?.queue ?? null,
    consumers: q?.consumers ?? null,
    inFlight: q?.inFlight ?? null,
    oldestAgeSeconds: q?.oldestAgeMs == null ? null : Math.round(q.oldestAgeMs / 1000),
  };
}

export async function evaluateAlarms(clock: Clock = systemClock): Promise<EvaluationResult> {
  const now = clock.now();
  // Both are idempotent reads/refreshes; only the state moves need the lock below.
  const stats = new Map((await refreshAgeStats(now)).map((s) => [s.sourceId, s]));
  const arrivals = await recentArrivals(now);
  // Redis, not Postgres, holds the quarantines; null (Redis not answering) leaves those alarms as they are.
  const builtin = await db().source.findMany({ where: { kind: 'builtin' }, select: { name: true } });
  const quarantined = await quarantinedCounts(builtin.map((s) => s.name));
  // Each source's longest-paused redrive task: it holds its dead letters meanwhile.
  const paused = new Map(
    (
      await db().$queryRaw<{ source_id: string; id: string; paused_at: Date; paused_reason: string | null }[]>`
        SELECT DISTINCT ON (source_id) source_id, id, coalesce(paused_at, updated_at) AS paused_at, paused_reason
        FROM redrive_tasks WHERE status = 'paused' ORDER BY source_id, coalesce(paused_at, updated_at)`
    ).map((t) => [t.source_id, t]),
  );
  const pausedAlarmMs = env().REDRIVE_PAUSED_ALARM_SECONDS * 1000;
  // What the maintenance cycle last read of each connector source's own queue (readSourceQueues).
  const readings = new Map((await db().sourceQueueReading.findMany()).map((r) => [r.sourceId, r]));
  const sourceQueueMaxAgeMs = env().SOURCE_QUEUE_MAX_AGE_SECONDS * 1000;

  const { transitions, deliveries, sources } = await db().$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ALARMS_LOCK_KEY}::bigint)`;
      const sources = await tx.source.findMany({
        select: {
          id: true,
          name: true,
          teamId: true,
          kind: true,
          importPaused: true,
          ageDeadlineSeconds: true,
          alarmRatePending: true,
          alarmRateAlarm: true,
          health: { select: { consecutiveFailures: true, lastSuccessAt: true, lastError: true } },
        },
      });
      const alarmAfterMs = env().CONNECTOR_ALARM_AFTER_SECONDS * 1000;
      const prev = new Map((await tx.alarmState.findMany()).map((a) => [`${a.sourceId}|${a.kind}`, a]));
      const rows: StateRow[] = [];
      const transitions: AlarmTransition[] = [];
      for (const s of sources) {
        const st: AgeStats | undefined = stats.get(s.id);
        const recent = arrivals.get(s.id);
        const o: SourceObservation = {
          openCount: st?.openCount ?? 0,
          oldestAgeMs: st?.oldestDeadAt ? now.getTime() - st.oldestDeadAt.getTime() : null,
          ageDeadlineMs: s.ageDeadlineSeconds * 1000,
          rateCount: recent?.windowCounts[0] ?? 0,
          rate: { pending: s.alarmRatePending, alarm: s.alarmRateAlarm },
          rateWindowMs: rateWindowMs(),
        };
        const connector = isConnectorKind(s.kind);
        if (connector) {
          const p = prev.get(`${s.id}|connector`);
          const failures = s.health?.consecutiveFailures ?? 0;
          const pendingSince = p && p.state !== 'OK' ? p.since : null;
          o.connector = {
            failures,
            downForMs: connectorDownForMs(now, failures, s.health?.lastSuccessAt ?? null, pendingSince),
            alarmAfterMs,
            lastError: s.health?.lastError ?? null,
            paused: s.importPaused,
          };
        }
        const c = recent ? classify(recent, o.rate) : null;
        // No arrivals this hour: the backlog's cause has not changed, keep the label it had (an
        // outage's errors have stopped arriving, though).
        const keptLabel = keptLabelOf(SOURCE_ALARM_KINDS.map((k) => prev.get(`${s.id}|${k}`)?.label).find((l): l is string => !!l) ?? null);
        const label = c?.label ?? keptLabel;
        const kinds: AlarmKind[] = [...SOURCE_ALARM_KINDS, ...(connector ? (['connector'] as const) : [])];
        const inQuarantine = s.kind === 'builtin' ? quarantined?.get(s.name) : undefined;
        // A source gets the quarantine alarm once its queue quarantined a job, not a row of OK before.
        if (inQuarantine !== undefined && (inQuarantine > 0 || prev.has(`${s.id}|quarantine`))) {
          o.quarantine = { count: inQuarantine, key: quarantineKey(s.name) };
          kinds.push('quarantine');
        }
        // A source gets the redrive alarm once a task of it paused, not a row of OK before.
        const pausedTask = paused.get(s.id);
        // The reason is free text: it reaches the alarm's detail and the team's webhooks masked.
        if (pausedTask) {
          o.pausedTask = {
            taskId: pausedTask.id,
            pausedForMs: Math.max(0, now.getTime() - pausedTask.paused_at.getTime()),
            alarmAfterMs: pausedAlarmMs,
            reason: pausedTask.paused_reason === null ? null : maskText(pausedTask.paused_reason),
          };
        }
        if (pausedTask || prev.has(`${s.id}|redrive`)) kinds.push('redrive');
        // A fresh reading moves the consumer alarm; a stale one (the broker did not answer) leaves it
        // as it was, and a source that names no source queue any more has nothing to alarm about.
        const reading = connector ? readings.get(s.id) : undefined;
        if (reading && staleness(reading, now) === null && reading.queue !== null && reading.depth !== null) {
          o.sourceQueue = {
            queue: reading.queue,
            depth: Number(reading.depth),
            inFlight: reading.inFlight === null ? null : Number(reading.inFlight),
            consumers: reading.consumers,
            // The age as read, grown by the time since: a reading is at most a cycle old.
            oldestAgeMs: reading.oldestAgeSeconds === null ? null : reading.oldestAgeSeconds * 1000 + Math.max(0, now.getTime() - reading.readAt!.getTime()),
            maxAgeMs: sourceQueueMaxAgeMs,
          };
          kinds.push('consumer');
        } else if (reading?.queue === null && prev.has(`${s.id}|consumer`)) kinds.push('consumer');
        const queueProblem = o.sourceQueue ? sourceQueueProblem(o.sourceQueue) : null;
        for (const kind of kinds) {
          const p = prev.get(`${s.id}|${kind}`);
          const position = nextState(p ? { state: p.state, since: p.since } : undefined, targetLevel(kind, o), now, CONFIRM_MS[kind]);
          // The arrivals' errors tell an outage from poison; a broker the connector cannot reach is its own cause.
          const own: Partial<Record<AlarmKind, AlarmLabel>> = { connector: 'broker unreachable', quarantine: 'jobs quarantined', redrive: 'redrive paused' };
          // A consumer alarm's cause is the source queue's, not the arrivals'.
          const rowLabel = position.state === 'OK' ? null : kind === 'consumer' ? queueProblem : (own[kind] ?? label);
          const hint = rowLabel ? (HINTS[rowLabel as AlarmLabel] ?? null) : null;
          const d = describe(kind, o);
          rows.push({
            source_id: s.id,
            kind,
            state: position.state,
            since: position.since.toISOString(),
            label: rowLabel,
            detail:
              kind === 'connector'
                ? { ...d, hint, failures: o.connector!.failures, lastError: o.connector!.lastError }
                : kind === 'quarantine'
                  ? { ...d, hint, key: o.quarantine!.key }
                  : kind === 'redrive'
                    ? { ...d, hint, taskId: o.pausedTask?.taskId ?? null, reason: o.pausedTask?.reason ?? null }
                    : kind === 'consumer'
                      ? { ...d, hint, ...sourceQueueDetail(o) }
                      : {
                          ...d,
                          hint,
                          dominantClusterId: c?.dominantClusterId ?? null,
                          dominantShare: c?.dominantShare ?? null,
                          errorClasses: c?.classCounts ?? null,
                        },
            evaluated_at: now.toISOString(),
          });
          const from = p?.state ?? 'OK';
          if (position.state !== from) {
            transitions.push({
              sourceId: s.id,
              sourceName: s.name,
              teamId: s.teamId,
              kind,
              from,
              to: position.state,
              at: now,
              label: rowLabel,
              hint,
              value: d.value,
              ageDeadlineSeconds: s.ageDeadlineSeconds,
              ...(kind === 'connector' ? { lastError: o.connector!.lastError, failures: o.connector!.failures } : {}),
              ...(kind === 'quarantine' ? { quarantineKey: o.quarantine!.key } : {}),
              ...(kind === 'redrive' ? { taskReason: o.pausedTask?.reason ?? null } : {}),
              ...(kind === 'consumer' ? { sourceQueue: { ...sourceQueueDetail(o), maxAgeSeconds: env().SOURCE_QUEUE_MAX_AGE_SECONDS } } : {}),
            });
          }
        }
      }
      if (rows.length) {
        await tx.$executeRaw`
          INSERT INTO alarm_states (source_id, kind, state, since, label, detail, evaluated_at)
          SELECT source_id, kind, state, since, label, detail, evaluated_at FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            AS x(source_id uuid, kind "AlarmKind", state "AlarmStateValue", since timestamptz, label text, detail jsonb, evaluated_at timestamptz)
          ON CONFLICT (source_id, kind) DO UPDATE SET state = EXCLUDED.state, since = EXCLUDED.since, label = EXCLUDED.label,
            detail = EXCLUDED.detail, evaluated_at = EXCLUDED.evaluated_at`;
      }
      const deliveries: DeliveryRef[] = [];
      if (transitions.length) {
        await tx.alarmEvent.createMany({
          data: transitions.map((t) => ({
            sourceId: t.sourceId,
            kind: t.kind,
            from: t.from,
            to: t.to,
            at: t.at,
            label: t.label,
            detail: {
              value: t.value,
              hint: t.hint,
              ...(t.kind === 'connector' ? { lastError: t.lastError ?? null } : {}),
              ...(t.kind === 'quarantine' ? { key: t.quarantineKey ?? null } : {}),
              ...(t.kind === 'consumer' ? { queue: t.sourceQueue?.queue ?? null, consumers: t.sourceQueue?.consumers ?? null } : {}),
            },
          })),
        });
        await recordWaves(tx, transitions, now, rateWindowMs());
        for (const t of transitions) deliveries.push(...(await createDeliveries(tx, t.teamId, 'alarm.transition', alarmMessage(t, env().APP_URL))));
      }
      return { transitions, deliveries, sources: sources.length };
    },
    { timeout: 30_000 },
  );
  await enqueueAfterCommit(deliveries);
  return { sources, transitions };
}
