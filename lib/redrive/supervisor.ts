// The redrive worker's loop. Work comes from two places: BullMQ nudges (fast) and Postgres, read on
// start and every few seconds (durable): a task that is queued or running with no live runner is
// taken up again, so after a SIGKILL or a Redis restart nothing is lost, and nothing in Redis is
// the only copy. One runner per task across processes: a session advisory lock in Postgres, freed
// by the server the moment a killed worker's connection drops.
import { randomUUID } from 'node:crypto';
import { db } from '@/lib/db';
import { openLockedRuns } from '@/lib/db/advisory-locks';
import { log } from '@/lib/log';
import { QUEUES } from '@/lib/queue';
import { processJob } from '@/lib/queue/process-job';
import { createQueueWorker } from '@/lib/queue/worker';
import { redisConnection } from '@/lib/redis';
import { detectDeadAgain, finalizeOutcomes } from '@/lib/intake/redrive-outcomes';
import { runRedriveTask, type RunnerOptions } from './run-task';
import { TASK_LOCK_CLASS } from './task-lock';

export interface RedriveSupervisorOptions extends Omit<RunnerOptions, 'stop'> {
  /** Tasks run at once by this process. */
  concurrency?: number;
  /** How often Postgres is scanned for runnable tasks. */
  reconcileMs?: number;
}

export interface RedriveSupervisor {
  /** Tasks this process runs right now. */
  running(): string[];
  /** Finish the batches in flight, release the tasks, disconnect. */
  stop(): Promise<void>;
}

/** Tasks no runner watches are scanned for late deaths every 15 reconciles, 30 s by default (each scan reads the source's new deaths). */
const LATE_DEATH_SCAN_EVERY = 15;
/** How long after a task ended a late death still corrects its "no death seen". */
const LATE_DEATH_HORIZON_S = 3_600;

export async function startRedriveSupervisor(options: RedriveSupervisorOptions = {}): Promise<RedriveSupervisor> {
  const { concurrency = 8, reconcileMs = 2_000, ...runner } = options;
  const clock = runner.clock ?? Date.now;
  const runners = await openLockedRuns(TASK_LOCK_CLASS);
  // This process's runner lease id: one runner per task within the process is the runners map.
  const runnerId = randomUUID();
  let stopping = false;
  let lastLateScan = Number.NEGATIVE_INFINITY;

  async function ensureRunning(taskId: string): Promise<void> {
    if (stopping || runners.running.has(taskId) || runners.running.size >= concurrency) return;
    await runners.start(
      taskId,
      {},
      (signal) =>
        runRedriveTask(taskId, { ...runner, runnerId, stop: signal })
          .then((end) => log.info({ taskId, end }, 'redrive runner ended'))
          .catch((err: unknown) => log.error({ err, taskId }, 'redrive runner failed; the next reconcile takes the task up again')),
      () => stopping,
    );
  }

  async function reconcile(): Promise<void> {
    if (stopping) return;
    // The locks' session was replaced, so its locks are gone: every runner stops, and this reconcile
    // takes the tasks up again under new locks.
    const replaced = await runners.replaced();
    if (replaced) {
      log.warn(replaced, 'redrive lock session was replaced; restarting runners');
      await runners.stopAll();
    }
    const runnable = await db().redriveTask.findMany({ where: { status: { in: ['queued', 'running'] } }, orderBy: { createdAt: 'asc' }, select: { id: true } });
    for (const t of runnable) await ensureRunning(t.id);
    // Sent items of tasks no runner watches (paused, cancelled): dead again found by scan, and each
    // final at its window's end, so none of their dead letters stays redriving.
    const watching = await db().$queryRaw<
      { id: string; sourceId: string; destinationSourceId: string | null; createdAt: Date; createdById: string | null; windowMs: number }[]
    >`
      SELECT t.id, t.source_id AS "sourceId", t.destination_source_id AS "destinationSourceId", t.created_at AS "createdAt", t.created_by_id AS "createdById", t.outcome_window_ms AS "windowMs"
      FROM redrive_tasks t
      WHERE t.status IN ('paused', 'completed', 'cancelled', 'failed') AND t.sent > t.acknowledged + t.dead_again + t.no_death_seen`;
    for (const t of watching) {
      const scope = { id: t.id, sourceId: t.sourceId, destinationSourceId: t.destinationSourceId, since: t.createdAt, createdById: t.createdById };
      await detectDeadAgain(scope);
      await finalizeOutcomes(scope, new Date(clock()), { windowMs: t.windowMs });
    }
    // A death within an item's window that came back after its "no death seen" (an import paused,
    // failing or behind the broker) corrects the verdict, for an hour after the task ended or paused
    // (while running, its runner's own scans find them). Times are the runner's clock, as it wrote them.
    if (clock() - lastLateScan >= LATE_DEATH_SCAN_EVERY * reconcileMs) {
      lastLateScan = clock();
      const horizon = new Date(clock() - LATE_DEATH_HORIZON_S * 1000);
      const ended = await db().$queryRaw<{ id: string; sourceId: string; destinationSourceId: string | null; createdAt: Date }[]>`
        SELECT t.id, t.source_id AS "sourceId", t.destination_source_id AS "destinationSourceId", t.created_at AS "createdAt"
        FROM redrive_tasks t
        WHERE t.status IN ('paused', 'completed', 'cancelled', 'failed') AND t.no_death_seen > 0
          AND COALESCE(t.finished_at, t.paused_at) > ${horizon}`;
      for (const t of ended) {
        await detectDeadAgain({ id: t.id, sourceId: t.sourceId, destinationSourceId: t.destinationSourceId, since: t.createdAt });
      }
    }
  }

  let reconciling: Promise<void> | null = null;
  const tick = () => {
    reconciling ??= reconcile()
      .catch((err: unknown) => log.warn({ err }, 'redrive reconcile failed; retrying'))
      .finally(() => {
        reconciling = null;
      });
    return reconciling;
  };
  const timer = setInterval(tick, reconcileMs);

  const connection = redisConnection('worker');
  const worker = createQueueWorker(
    QUEUES.redrive,
    processJob(QUEUES.redrive, {
      redriveTask: async ({ taskId }) => {
        // A nudge that cannot be served now is not retried: the next reconcile finds the task anyway,
        // and a failed job would hold its id (and drop later nudges) until it is removed.
        await ensureRunning(taskId).catch((err: unknown) => log.warn({ err, taskId }, 'redrive nudge not served; the reconcile will take the task up'));
      },
    }),
    // Redis away: the reconcile loop carries on from Postgres.
    { connection, concurrency: 4, errorMessage: 'redrive queue connection error' },
  );

  await tick();

  return {
    running: () => [...runners.running.keys()],
    async stop() {
      stopping = true;
      clearInterval(timer);
      await worker.close();
      await connection.quit().catch(() => undefined);
      // The runners stop at once; the reconcile in flight ends before the session closes.
      const runnersStopped = runners.stopAll();
      await reconciling;
      await runnersStopped;
      await runners.end();
    },
  };
}
