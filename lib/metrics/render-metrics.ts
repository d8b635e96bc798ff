// GET /api/metrics in Prometheus text format: the sources the scraper's user may read, from the
// per-source stats the maintenance worker refreshes every 15 s (recomputed on the spot when stale),
// so a scrape is a few small reads at any table size. A registry per request: no global state
// shared between scrapers that see different sources.
import { Counter, Gauge, Registry } from 'prom-client';
import { db } from '@/lib/db';
import { replicaMetrics } from '@/lib/db/replica';
import { sourceScope, type Principal } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { staleness } from '@/lib/connectors/source-queue-view';
import { isConnectorKind } from '@/lib/connectors/types';
import { writeBudget } from '@/lib/admission';
import { backlogSize } from '@/lib/search';
import { computeAgeStats } from '@/lib/sla/age-stats';
import { STATS_MAX_AGE_MS } from '@/lib/sla/sla-board';
import { workerHeartbeats } from '@/lib/worker-runner/heartbeat';

const ALARM_VALUE = { OK: 0, PENDING: 1, ALARM: 2 } as const;

export async function renderMetrics(actor: Principal, clock: Clock = systemClock): Promise<{ contentType: string; body: string }> {
  const now = clock.now();
  const sources = await db().source.findMany({
    where: sourceScope(actor, 'deadletters.read'),
    orderBy: { name: 'asc' },
    select: {
      id: true,
      name: true,
      kind: true,
      importPaused: true,
      stats: true,
      alarms: { select: { kind: true, state: true } },
      health: true,
      sourceQueue: true,
    },
  });
  const stale = sources.filter((s) => !s.stats?.evaluatedAt || Math.abs(now.getTime() - s.stats.evaluatedAt.getTime()) > STATS_MAX_AGE_MS).map((s) => s.id);
  const live = new Map((stale.length ? await computeAgeStats(now, stale) : []).map((s) => [s.sourceId, s]));
  const tasks = await db().redriveTask.findMany({
    where: { status: { in: ['queued', 'running', 'paused'] }, sourceId: { in: sources.map((s) => s.id) } },
    select: { id: true, sourceId: true, status: true, total: true, sent: true, acknowledged: true, deadAgain: true, noDeathSeen: true, failed: true },
  });

  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[]) => new Gauge({ name, help, labelNames, registers: [registry] });
  const open = gauge('triage_dead_letters_open', 'Open dead letters', ['source']);
  const oldest = gauge('triage_dead_letter_oldest_age_seconds', 'Age of the oldest open dead letter since it was dead-lettered', ['source']);
  const oldestEnqueued = gauge(
    'triage_dead_letter_oldest_enqueued_age_seconds',
    'Age of the oldest open dead letter since first enqueued (the SQS standard-queue clock)',
    ['source'],
  );
  const near = gauge('triage_dead_letters_near_deadline', 'Open dead letters with less than 24 h left before the age deadline', ['source']);
  const breached = gauge('triage_dead_letters_breached', 'Open dead letters past the age deadline', ['source']);
  const expiring = gauge('triage_dead_letters_expiring_soon', 'Open dead letters expiring under the retention within 3 days', ['source']);
  const alarm = gauge('triage_alarm_state', 'Alarm state: 0 OK, 1 PENDING, 2 ALARM', ['source', 'kind']);
  const statsAge = gauge('triage_source_stats_age_seconds', 'How old the figures above are', ['source']);
  const total = new Counter({
    name: 'triage_dead_letters_total',
    help: 'Dead letters recorded, by reason',
    labelNames: ['source', 'reason'],
    registers: [registry],
  });
  const redrive = {
    total: gauge('triage_redrive_total', 'Dead letters in an active redrive task', ['task', 'source', 'status']),
    sent: gauge('triage_redrive_sent', 'Dead letters an active redrive task has sent', ['task', 'source', 'status']),
    acknowledged: gauge('triage_redrive_acknowledged', 'Redriven dead letters acknowledged by the consumer', ['task', 'source', 'status']),
    deadAgain: gauge('triage_redrive_dead_again', 'Redriven dead letters that died again', ['task', 'source', 'status']),
    noDeathSeen: gauge('triage_redrive_no_death_seen', 'Redriven dead letters with no death seen within the outcome window', ['task', 'source', 'status']),
    failed: gauge('triage_redrive_failed', 'Redrive sends that failed', ['task', 'source', 'status']),
  };

  // Connector sources: their import's health, as the connectors worker last wrote it.
  const connector = {
    up: gauge('triage_connector_up', 'Connector import reaches its broker: 1 up, 0 failing (or never connected); absent while paused', ['source', 'kind']),
    lastSuccess: gauge('triage_connector_last_success_timestamp_seconds', 'Unix time of the last successful poll or import (0: never)', ['source', 'kind']),
    imported: new Counter({
      name: 'triage_connector_imported_total',
      help: 'Dead letters imported from the broker (new rows; duplicates absorbed are not counted)',
      labelNames: ['source', 'kind'],
      registers: [registry],
    }),
    lag: gauge('triage_connector_lag', 'Messages left on the broker (queue depth) at the last poll', ['source', 'kind']),
    failures: gauge('triage_connector_consecutive_failures', 'Failed import attempts in a row since the last success', ['source', 'kind']),
    paused: gauge('triage_connector_import_paused', 'Import paused by a user: 1 paused, 0 running', ['source', 'kind']),
  };
  // The source queue beside the DLQ, as the maintenance cycle last read it (absent: not watched).
  const sourceQueue = {
    depth: gauge('triage_source_queue_depth', 'Messages waiting on the source queue (what the consumer reads, not the DLQ) at the last read', [
      'source',
      'kind',
    ]),
    consumers: gauge('triage_source_queue_consumers', 'Consumers of the source queue at the last read; absent when the broker does not tell (SQS)', [
      'source',
      'kind',
    ]),
    oldest: gauge('triage_source_queue_oldest_age_seconds', 'Age of the oldest waiting message at the last read; absent when unknown', ['source', 'kind']),
    stale: gauge(
      'triage_source_queue_stale',
      'The source queue reading is stale (the last read failed, the source names no source queue, or none for two minutes): 1 stale, 0 fresh',
      ['source', 'kind'],
    ),
  };

  // Capped like the list's count: a scrape never counts a huge backlog row by row.
  const unindexed = await backlogSize({ cap: 100_000, sourceIds: sources.map((s) => s.id) });
  gauge('triage_search_backlog', 'Dead letters of these sources not yet searchable by text (capped at 100,000)', []).set(unindexed.count);

  const names = new Map(sources.map((s) => [s.id, s.name]));
  for (const s of sources) {
    const st = live.get(s.id) ?? s.stats!;
    const secondsSince = (at: Date | null) => (at ? Math.max(0, (now.getTime() - at.getTime()) / 1000) : 0);
    const source = s.name;
    open.set({ source }, st.openCount);
    oldest.set({ source }, secondsSince(st.oldestDeadAt));
    oldestEnqueued.set({ source }, secondsSince(st.oldestEnqueuedAt));
    near.set({ source }, st.nearDeadline);
    breached.set({ source }, st.breached);
    expiring.set({ source }, st.expiringSoon);
    statsAge.set({ source }, secondsSince(st.evaluatedAt));
    for (const [reason, n] of Object.entries((s.stats?.totals ?? {}) as Record<string, number>)) total.inc({ source, reason }, Number(n));
    for (const a of s.alarms) alarm.set({ source, kind: a.kind }, ALARM_VALUE[a.state]);
    if (isConnectorKind(s.kind)) {
      const labels = { source, kind: s.kind };
      const h = s.health;
      connector.paused.set(labels, s.importPaused ? 1 : 0);
      connector.imported.inc(labels, Number(h?.importedTotal ?? 0));
      connector.failures.set(labels, h?.consecutiveFailures ?? 0);
      connector.lastSuccess.set(labels, h?.lastSuccessAt ? h.lastSuccessAt.getTime() / 1000 : 0);
      if (h?.lag != null) connector.lag.set(labels, Number(h.lag));
      if (!s.importPaused) connector.up.set(labels, h?.lastSuccessAt && h.consecutiveFailures === 0 ? 1 : 0);
      const q = s.sourceQueue;
      if (q) {
        if (q.depth !== null) sourceQueue.depth.set(labels, Number(q.depth));
        if (q.consumers !== null) sourceQueue.consumers.set(labels, q.consumers);
        if (q.oldestAgeSeconds !== null) sourceQueue.oldest.set(labels, q.oldestAgeSeconds);
        sourceQueue.stale.set(labels, staleness(q, now) === null ? 0 : 1);
      }
    }
  }
  for (const t of tasks) {
    const labels = { task: t.id, source: names.get(t.sourceId) ?? '', status: t.status };
    redrive.total.set(labels, t.total);
    redrive.sent.set(labels, t.sent);
    redrive.acknowledged.set(labels, t.acknowledged);
    redrive.deadAgain.set(labels, t.deadAgain);
    redrive.noDeathSeen.set(labels, t.noDeathSeen);
    redrive.failed.set(labels, t.failed);
  }
  // Worker processes, by kind: the newest heartbeat's age, and 0 while it is stale.
  const heartbeatAge = gauge('triage_worker_heartbeat_age_seconds', 'Seconds since the newest heartbeat of a worker kind', ['kind']);
  const workerUp = gauge('triage_worker_up', 'A worker kind is beating: 1 fresh, 0 stale', ['kind']);
  for (const k of await workerHeartbeats(now)) {
    heartbeatAge.set({ kind: k.kind }, k.ageSeconds);
    workerUp.set({ kind: k.kind }, k.stale ? 0 : 1);
  }
  // The write budget, as every process shares it (lib/admission); absent while it is off (nothing to
  // show, and no Redis round trip on every scrape) or Redis does not answer.
  const budget =
    writeBudget().size === 0
      ? null
      : await writeBudget()
          .stats()
          .catch(() => null);
  if (budget) {
    gauge('triage_write_budget_size', 'Write work admitted at once across processes (WRITE_BUDGET)', []).set(budget.size);
    gauge('triage_write_budget_in_use', 'Write leases held now, across processes', []).set(budget.inUse);
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames: ['writer'], registers: [registry] });
    const waits = counter('triage_write_budget_waits_total', 'Admissions that waited for the write budget, by writer');
    const refusals = counter('triage_write_budget_refusals_total', 'Write work refused or given up for want of budget (ingest: a 503), by writer');
    const throttled = counter('triage_write_budget_throttled_seconds_total', 'Time writers spent waiting for the write budget, by writer');
    const lost = counter(
      'triage_write_budget_lost_leases_total',
      'Write leases found expired under a stalled holder (taken again before its next write), by writer',
    );
    for (const [writer, w] of Object.entries(budget.writers)) {
      waits.inc({ writer }, w.waits);
      refusals.inc({ writer }, w.refusals);
      throttled.inc({ writer }, w.throttledSeconds);
      lost.inc({ writer }, w.lostLeases);
    }
  }
  // This process's replica routing (lib/db/replica.ts), when a replica is configured.
  const replica = replicaMetrics();
  return { contentType: registry.contentType, body: await (replica ? Registry.merge([registry, replica]) : registry).metrics() };
}
