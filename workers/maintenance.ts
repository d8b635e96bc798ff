// The maintenance process: repeatable jobs on the maintenance queue (alarms and rollups every 15 s,
// so metrics and charts are never more than 15 s behind; the retention sweep and webhook
// re-queueing every minute; dead_letters' monthly partitions created ahead and expired ones dropped every 10 min; the audit checkpoint every 10 min; masking verdicts recomputed in
// bounded batches every 5 s while a source's are pending; grouping-rule re-application every 5 s; redrive rules every 5 s) and the webhook deliveries
// themselves. BullMQ job schedulers make each run happen once however many of these processes are
// up, and are put back when a Redis restart forgot them; the work is in lib/.
import { Worker, type Job } from 'bullmq';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { writeCheckpoint } from '@/lib/audit/checkpoint';
import { advanceRegroupRuns } from '@/lib/clustering/regroup';
import { MINUTE, SECOND, systemClock } from '@/lib/clock';
import { closeDb, useWorkerTimeouts } from '@/lib/db';
import { log } from '@/lib/log';
import { recomputeVerdicts } from '@/lib/masking/recompute-verdicts';
import { startHeartbeat } from '@/lib/workers/heartbeat';
import { redeliverPending, webhookWorker } from '@/lib/notifications/deliveries';
import { JOBS, QUEUES, closeQueues, producerQueue, queuePrefix } from '@/lib/queue';
import { redisConnection } from '@/lib/redis';
import { maintainPartitions } from '@/lib/retention/partitions';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { evaluateRedriveRules } from '@/lib/redrive-rules';
import { computeRollups } from '@/lib/rollups/compute-rollups';

// Before any query: every session of this process carries the worker timeouts (its bulk statements get the longer bulk timeout: lib/db.ts).
useWorkerTimeouts('bulk');

const SCHEDULES = [
  { name: JOBS.alarmsEvaluate, every: 15 * SECOND },
  { name: JOBS.rollupsCompute, every: 15 * SECOND },
  { name: JOBS.retentionSweep, every: MINUTE },
  { name: JOBS.retentionPartitions, every: 10 * MINUTE },
  { name: JOBS.webhooksRedeliver, every: MINUTE },
  { name: JOBS.auditCheckpoint, every: 10 * MINUTE },
  { name: JOBS.maskingRecompute, every: 5 * SECOND },
  { name: JOBS.clustersRegroup, every: 5 * SECOND },
  { name: JOBS.redriveRulesEvaluate, every: 5 * SECOND },
] as const;

const HANDLERS: Record<(typeof SCHEDULES)[number]['name'], () => Promise<unknown>> = {
  [JOBS.alarmsEvaluate]: async () => {
    const r = await evaluateAlarms(systemClock);
    return { sources: r.sources, transitions: r.transitions.length };
  },
  [JOBS.rollupsCompute]: () => computeRollups(systemClock.now()),
  [JOBS.retentionSweep]: () => sweepExpired(systemClock),
  // Months ahead of dead_letters, and whole expired months dropped (lib/retention/partitions.ts).
  [JOBS.retentionPartitions]: async () => {
    const r = await maintainPartitions(systemClock);
    return { created: r.created, dropped: r.dropped.map((d) => d.name) };
  },
  [JOBS.webhooksRedeliver]: () => redeliverPending(systemClock.now()),
  [JOBS.auditCheckpoint]: async () => (await writeCheckpoint()).written,
  [JOBS.maskingRecompute]: () => recomputeVerdicts({ budgetMs: 3 * SECOND }),
  // Re-applying grouping rules in bounded batches (lib/clustering/regroup.ts).
  [JOBS.clustersRegroup]: () => advanceRegroupRuns(),
  // Redrive rules start ordinary tasks once their trigger holds (lib/redrive-rules); idempotent.
  [JOBS.redriveRulesEvaluate]: () => evaluateRedriveRules(systemClock),
};

/** How often the schedulers are checked: Redis without persistence forgets them when it restarts. */
const SCHEDULES_CHECK_MS = 10 * SECOND;

/**
 * Put in place the schedulers that are missing (all of them at start, or after a Redis restart that
 * kept nothing). Only the missing ones: upserting a present one would move its next run.
 */
async function ensureSchedules(queue: ReturnType<typeof producerQueue>): Promise<string[]> {
  const present = new Set((await queue.getJobSchedulers()).map((s) => s.key ?? s.name));
  const missing = SCHEDULES.filter((s) => !present.has(s.name));
  for (const s of missing) await queue.upsertJobScheduler(s.name, { every: s.every }, { name: s.name });
  return missing.map((s) => s.name);
}

async function main(): Promise<void> {
  const queue = producerQueue(QUEUES.maintenance);
  await ensureSchedules(queue);
  const scheduleCheck = setInterval(() => {
    ensureSchedules(queue).then(
      (restored) => restored.length > 0 && log.warn({ restored }, 'job schedulers were missing (Redis restarted?): put back'),
      (err: unknown) => log.warn({ err }, 'could not check the job schedulers; trying again'),
    );
  }, SCHEDULES_CHECK_MS);

  const maintenance = new Worker(
    QUEUES.maintenance,
    async (job: Job) => {
      const handler = HANDLERS[job.name as keyof typeof HANDLERS];
      if (!handler) throw new Error(`unknown maintenance job ${job.name}`);
      const started = Date.now();
      const result = await handler();
      log.debug({ job: job.name, ms: Date.now() - started, result }, 'maintenance job done');
      return result;
    },
    // Two at a time: a long sweep does not hold up the 15-second alarms. Alarms and rollups take
    // advisory locks, so an overrun never runs twice at once.
    { connection: redisConnection('worker'), prefix: queuePrefix(), concurrency: 2 },
  );
  maintenance.on('failed', (job, err) => log.error({ job: job?.name, err }, 'maintenance job failed'));
  maintenance.on('error', (err) => log.error({ err }, 'maintenance worker error'));
  const deliveries = webhookWorker();
  await Promise.all([maintenance.waitUntilReady(), deliveries.waitUntilReady()]);
  const heartbeat = startHeartbeat('maintenance');
  log.info({ queues: [QUEUES.maintenance, QUEUES.webhooks], schedules: SCHEDULES.map((s) => `${s.name}/${s.every}ms`) }, 'ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'maintenance worker stopping');
    clearInterval(scheduleCheck);
    // Running jobs finish first; the schedulers stay in Redis for the next process.
    await Promise.all([maintenance.close(), deliveries.close()]);
    await closeQueues();
    await heartbeat.stop();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'maintenance worker failed to start');
  process.exit(1);
});
