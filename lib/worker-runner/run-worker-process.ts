// The one runner of every process in workers/ (formbricks packages/jobs "runtime"): the environment
// is checked at boot (check-env.ts, imported first), the Postgres sessions get the worker timeouts
// before any query, the process starts, beats (lib/worker-runner/heartbeat.ts), says "ready", and on the
// first SIGTERM or SIGINT stops once: the work in hand finishes, then the heartbeat row, the queues
// and the pools are closed. A stop that hangs past graceMs is cut short. The exit code says which:
// EXIT below, and 78 for an invalid environment.
import { EXIT_INVALID_ENV } from './check-env';
import { closeDb, setWorkerTimeouts } from '@/lib/db';
import { log } from '@/lib/log';
import { closeQueues } from '@/lib/queue';
import { startHeartbeat, type Heartbeat, type WorkerKind } from './heartbeat';

export const EXIT = {
  /** Stopped on a signal, everything closed. */
  stopped: 0,
  /** Failed to start (or its work failed for good while running). */
  failed: 1,
  /** Stopping threw: something may have been left half done. */
  stopFailed: 2,
  /** Stopping took longer than graceMs: the work in hand was abandoned (a queue redelivers it). */
  graceExceeded: 3,
  invalidEnv: EXIT_INVALID_ENV,
} as const;

/** Handed to start: `fail` ends the process for a loop that cannot go on (logged, exit 1). */
export interface WorkerContext {
  fail(err: unknown): void;
}

export interface WorkerProcessSpec<T> {
  /** In the log lines: "<name> stopping", "<name> failed to start". */
  name: string;
  /** Statement timeouts of this process's Postgres sessions (lib/db/pools.ts setWorkerTimeouts). */
  timeouts: 'worker' | 'bulk';
  /** The heartbeat kind this process writes; none for the demo's producers. */
  heartbeat?: WorkerKind;
  start(ctx: WorkerContext): Promise<T>;
  /** Fields of the "ready" line. */
  ready?(started: T): Record<string, unknown>;
  /** Fields of the "stopping" line. */
  stopping?(started: T): Record<string, unknown>;
  /** Stop taking work and finish what is in hand; the runner closes the heartbeat, queues and pools after. */
  stop(started: T): Promise<void>;
  /** How long stop may take before the process exits anyway (EXIT.graceExceeded). */
  graceMs?: number;
  /** Logged when the grace period runs out. */
  graceMessage?: string;
}

export const DEFAULT_GRACE_MS = 60_000;

export function runWorkerProcess<T>(spec: WorkerProcessSpec<T>): void {
  // Before any query: every session of this process carries the worker timeouts (a query gets an error, not a hang: lib/db/pools.ts).
  setWorkerTimeouts(spec.timeouts);
  let heartbeat: Heartbeat | undefined;
  let stopping = false;

  const fail = (err: unknown, what: string) => {
    if (stopping) return;
    stopping = true;
    log.fatal({ err }, `${spec.name} ${what}`);
    process.exit(EXIT.failed);
  };

  const started = spec.start({ fail: (err) => fail(err, 'failed') }).then((s) => {
    if (stopping) return s;
    if (spec.heartbeat) heartbeat = startHeartbeat(spec.heartbeat);
    log.info(spec.ready?.(s) ?? {}, 'ready');
    return s;
  });
  started.catch((err: unknown) => fail(err, 'failed to start'));

  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => {
      log.warn({ graceMs, signal }, spec.graceMessage ?? `${spec.name} still stopping after the grace period: exiting`);
      process.exit(EXIT.graceExceeded);
    }, graceMs);
    // Not unref'd: a stop waiting on a promise nothing will settle would otherwise let the event
    // loop drain and the process end with 0, as if it had stopped cleanly.
    let code: number = EXIT.stopped;
    try {
      // A signal during start waits for it, then stops what has started (a start that failed: exit 1).
      const s = await started.catch((err: unknown) => {
        code = EXIT.failed;
        throw err;
      });
      log.info({ signal, ...spec.stopping?.(s) }, `${spec.name} stopping`);
      await spec.stop(s);
    } catch (err) {
      if (code === EXIT.failed) log.fatal({ err }, `${spec.name} failed to start`);
      else log.error({ err }, `${spec.name}: stopping failed`);
      code = code === EXIT.failed ? code : EXIT.stopFailed;
    } finally {
      try {
        await heartbeat?.stop();
        await Promise.all([closeQueues(), closeDb()]);
      } catch (err) {
        log.error({ err }, `${spec.name}: closing failed`);
        code = EXIT.stopFailed;
      }
      clearTimeout(timer);
      process.exit(code);
    }
  };
  const graceMs = spec.graceMs ?? DEFAULT_GRACE_MS;
  process.on('SIGTERM', (s) => void onSignal(s));
  process.on('SIGINT', (s) => void onSignal(s));
}
