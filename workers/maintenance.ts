// The maintenance process: repeatable jobs on the maintenance queue (connector sources' source queues
// read, then alarms, and rollups every 15 s, so metrics and charts are never more than 15 s behind; the retention sweep and webhook
// re-queueing every minute; dead_letters' monthly partitions created ahead, expired ones dropped and the parent analyzed when stale every 10 min, a partition whose statistics autovacuum has not caught up with analyzed every 30 s; the audit checkpoint every 10 min; masking verdicts recomputed in
// bounded batches every 5 s while a source's are pending; grouping-rule re-application every 5 s; redrive rules every 5 s) and the webhook deliveries
// themselves. The schedules are the catalog's (lib/queue/catalog.ts `every`). BullMQ job schedulers
// make each run happen once however many of these processes are up, and are put back when a Redis
// restart forgot them; the work is in lib/.
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { readSourceQueues } from '@/lib/connectors/source-queue';
import { writeCheckpoint } from '@/lib/audit/checkpoint';
import { advanceRegroupRuns } from '@/lib/clustering/regroup';
import { SECOND, systemClock } from '@/lib/clock';
import { log } from '@/lib/log';
import { recomputeVerdicts } from '@/lib/masking/recompute-verdicts';
import { redeliverPending, webhookWorker } from '@/lib/notifications/deliveries';
import { QUEUES, producerQueue } from '@/lib/queue';
import { jobOptions, jobsOf } from '@/lib/queue/catalog';
import { processJob, type JobHandlers } from '@/lib/queue/process-job';
import { createQueueWorker } from '@/lib/queue/worker';
import { analyzeStalePartitions, maintainPartitions } from '@/lib/retention/partitions';
import { repairErrorTypes } from '@/lib/intake/error-types';
import { pg } from '@/lib/db';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { evaluateRedriveRules } from '@/lib/redrive-rules';
import { computeRollups } from '@/lib/rollups/compute-rollups';

const SCHEDULES = jobsOf('maintenance').flatMap((entry) => (entry.every ? [{ entry, every: entry.every }] : []));

/** Each handler's result goes to the debug log line "maintenance job done". */
const HANDLERS: JobHandlers = {
  alarmsEvaluate: async () => {
    // The source queues first, so the consumer alarms judge this cycle's readings. A broker that does
    // not answer is kept as a stale reading; even Postgres failing here must not skip the alarms.
    const queues = await readSourceQueues(systemClock).catch((err: unknown) => {
      log.warn({ err }, 'source queues not read this cycle');
      return null;
    });
    const r = await evaluateAlarms(systemClock);
    return {
      sources: r.sources,
      transitions: r.transitions.length,
      sourceQueues: queues && { read: queues.read, failed: queues.failed.length, deferred: queues.deferred },
    };
  },
  rollupsCompute: () => computeRollups(systemClock.now()),
  retentionSweep: () => sweepExpired(systemClock),
  // Months ahead of dead_letters, and whole expired months dropped (lib/retention/partitions.ts).
  retentionPartitions: async () => {
    const r = await maintainPartitions(systemClock);
    // The error types the list's filter reads, repaired from what is stored (lib/intake/error-types.ts).
    const errorTypesAdded = await repairErrorTypes(pg());
    return { created: r.created, dropped: r.dropped.map((d) => d.name), analyzed: r.analyzed, errorTypesAdded };
  },
  partitionsAnalyze: async () => ({ analyzed: await analyzeStalePartitions() }),
  webhooksRedeliver: () => redeliverPending(systemClock.now()),
  auditCheckpoint: async () => (await writeCheckpoint()).written,
  maskingRecompute: () => recomputeVerdicts({ budgetMs: 3 * SECOND }),
  // Re-applying grouping rules in bounded batches (lib/clustering/regroup.ts).
  clustersRegroup: () => advanceRegroupRuns(),
  // Redrive rules start ordinary tasks once their trigger holds (lib/redrive-rules); idempotent.
  redriveRulesEvaluate: () => evaluateRedriveRules(systemClock),
};

/** How often the schedulers are checked: Redis without persistence forgets them when it restarts. */
const SCHEDULES_CHECK_MS = 10 * SECOND;

/**
 * Put in place the schedulers that are missing (all of them at start, or after a Redis restart that
 * kept nothing). Only the missing ones: upserting a present one would move its next run.
 */
async function ensureSchedules(queue: ReturnType<typeof producerQueue>): Promise<string[]> {
  const present = new Set((await queue.getJobSchedulers()).map((s) => s.key ?? s.name));
  const missing = SCHEDULES.filter((s) => !present.has(s.entry.name));
  for (const s of missing) await queue.upsertJobScheduler(s.entry.name, { every: s.every }, { name: s.entry.name, opts: jobOptions(s.entry) });
  return missing.map((s) => s.entry.name);
}

async function start() {
  const queue = producerQueue(QUEUES.maintenance);
  await ensureSchedules(queue);
  const scheduleCheck = setInterval(() => {
    ensureSchedules(queue).then(
      (restored) => restored.length > 0 && log.warn({ restored }, 'job schedulers were missing (Redis restarted?): put back'),
      (err: unknown) => log.warn({ err }, 'could not check the job schedulers; trying again'),
    );
  }, SCHEDULES_CHECK_MS);

  const run = processJob(QUEUES.maintenance, HANDLERS);
  const maintenance = createQueueWorker(
    QUEUES.maintenance,
    async (job, token) => {
      const started = Date.now();
      const result: unknown = await run(job, token);
      log.debug({ job: job.name, ms: Date.now() - started, result }, 'maintenance job done');
      return result;
    },
    // Two at a time: a long sweep does not hold up the 15-second alarms. Alarms and rollups take
    // advisory locks, so an overrun never runs twice at once.
    { concurrency: 2, errorMessage: 'maintenance worker error', errorLevel: 'error' },
  );
  maintenance.on('failed', (job, err) => log.error({ job: job?.name, err }, 'maintenance job failed'));
  const deliveries = webhookWorker();
  await Promise.all([maintenance.waitUntilReady(), deliveries.waitUntilReady()]);
  return { scheduleCheck, maintenance, deliveries };
}

runWorkerProcess({
  name: 'maintenance worker',
  // Its bulk statements get the longer bulk timeout (lib/db/pools.ts).
  timeouts: 'bulk',
  heartbeat: 'maintenance',
  start,
  ready: () => ({ queues: [QUEUES.maintenance, QUEUES.webhooks], schedules: SCHEDULES.map((s) => `${s.entry.name}/${s.every}ms`) }),
  stop: async ({ scheduleCheck, maintenance, deliveries }) => {
    clearInterval(scheduleCheck);
    // Running jobs finish first; the schedulers stay in Redis for the next process.
    await Promise.all([maintenance.close(), deliveries.close()]);
  },
});
