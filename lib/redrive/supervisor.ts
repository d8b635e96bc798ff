// The redrive worker's loop. Work comes from two places: BullMQ nudges (fast) and Postgres, read on
// start and every few seconds (durable): a task that is queued or running with no live runner is
// taken up again, so after a SIGKILL or a Redis restart nothing is lost, and nothing in Redis is
// the only copy. One runner per task across processes: a session advisory lock in Postgres, freed
// by the server the moment a killed worker's connection drops.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { db, sessionTimeouts } from '@/lib/db';
import { env } from '@/lib/env';
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

export async function startRedriveSupervisor(options: RedriveSupervisorOptions = {}): Promise<RedriveSupervisor> {
  const { concurrency = 8, reconcileMs = 2_000, ...runner } = options;
  const clock = runner.clock ?? Date.now;
  // One dedicated session for the advisory locks; if it ever reconnects its locks are gone, so
  // every runner stops and the next reconcile takes the tasks up again under new locks.
  const locks = postgres(env().DATABASE_URL, { max: 1, idle_timeout: 0, max_lifetime: null, onnotice: () => {}, connection: sessionTimeouts() });
  const pidOf = async () => (await locks<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
  let lockPid = await pidOf();
  const runners = new Map<string, { stop: AbortController; done: Promise<void> }>();
  // This process's runner lease id: one runner per task within the process is the runners map.
  const runnerId = randomUUID();
  const stopAll = new AbortController();
  let stopping = false;

  async function ensureRunning(taskId: string): Promise<void> {
    if (stopping || runners.has(taskId) || runners.size >= concurrency) return;
    const [got] = await locks<{ ok: boolean }[]>`SELECT pg_try_advisory_lock(${TASK_LOCK_CLASS}, hashtext(${taskId})) AS ok`;
    if (!got?.ok || stopping || runners.has(taskId)) {
      if (got?.ok) await locks`SELECT pg_advisory_unlock(${TASK_LOCK_CLASS}, hashtext(${taskId}))`;
      return;
    }
    const stop = new AbortController();
    const onStopAll = () => stop.abort();
    stopAll.signal.addEventListener('abort', onStopAll, { once: true });
    const done = runRedriveTask(taskId, { ...runner, runnerId, stop: stop.signal })
      .then((end) => log.info({ taskId, end }, 'redrive runner ended'))
      .catch((err: unknown) => log.error({ err, taskId }, 'redrive runner failed; the next reconcile takes the task up again'))
      .finally(async () => {
        stopAll.signal.removeEventListener('abort', onStopAll);
        runners.delete(taskId);
        await locks`SELECT pg_advisory_unlock(${TASK_LOCK_CLASS}, hashtext(${taskId}))`.catch(() => undefined);
      });
    runners.set(taskId, { stop, done });
  }

  async function reconcile(): Promise<void> {
    if (stopping) return;
    const pid = await pidOf();
    if (pid !== lockPid) {
      log.warn({ was: lockPid, now: pid }, 'redrive lock session was replaced; restarting runners');
      lockPid = pid;
      for (const r of runners.values()) r.stop.abort();
      await Promise.all([...runners.values()].map((r) => r.done));
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
    running: () => [...runners.keys()],
    async stop() {
      stopping = true;
      clearInterval(timer);
      await worker.close();
      await connection.quit().catch(() => undefined);
      stopAll.abort();
      await reconciling;
      await Promise.all([...runners.values()].map((r) => r.done));
      await locks.end({ timeout: 5 });
    },
  };
}
