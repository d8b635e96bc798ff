// Runs held under session advisory locks, one per key across processes (the connectors' import
// loops, the redrive runners): the locks live on one dedicated connection, and the server frees a
// session's locks the moment its connection drops, so a killed worker's work is free to take up at
// once. If that session is ever replaced (a reconnect), its locks went with the old one.
import postgres from 'postgres';
import { env } from '@/lib/env';
import { sessionTimeouts } from './pools';

/** One run of this process: stopped by its controller; `done` settles once it ended and its lock is released. */
export interface LockedRun {
  stop: AbortController;
  done: Promise<void>;
}

export interface LockedRuns<R extends object> {
  /** The runs going in this process, by key. */
  readonly running: ReadonlyMap<string, LockedRun & R>;
  /**
   * Starts `run` under the lock of `key`, with `fields` kept beside it; not when another session
   * holds the lock, when `key` already runs here, or when `refused()` (asked once the lock is held:
   * a stop may have begun meanwhile). `run` must not reject.
   */
  start(key: string, fields: R, run: (signal: AbortSignal) => Promise<void>, refused?: () => boolean): Promise<void>;
  /** The session's backend before and now when it was replaced since the last look (every run lost its lock: stop them), else null. */
  replaced(): Promise<{ was: number; now: number } | null>;
  /** Stops every run at once and waits until each has ended. */
  stopAll(): Promise<void>;
  /** Closes the locks' session (after stopAll). */
  end(): Promise<void>;
}

/** The runs of one lock class (a run's key is hashed into the second half of its lock id). */
export async function openLockedRuns<R extends object = object>(lockClass: number): Promise<LockedRuns<R>> {
  const locks = postgres(env().DATABASE_URL, { max: 1, idle_timeout: 0, max_lifetime: null, onnotice: () => {}, connection: sessionTimeouts() });
  const unlock = async (key: string) => {
    await locks`SELECT pg_advisory_unlock(${lockClass}, hashtext(${key}))`;
  };
  const pidOf = async () => (await locks<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`)[0]!.pid;
  let pid = await pidOf();
  const running = new Map<string, LockedRun & R>();
  const stopAll = async () => {
    for (const r of running.values()) r.stop.abort();
    await Promise.all([...running.values()].map((r) => r.done));
  };
  return {
    running,
    async start(key, fields, run, refused = () => false) {
      const [got] = await locks<{ ok: boolean }[]>`SELECT pg_try_advisory_lock(${lockClass}, hashtext(${key})) AS ok`;
      if (!got?.ok) return; // another process runs it
      if (refused() || running.has(key)) {
        await unlock(key);
        return;
      }
      const stop = new AbortController();
      const done = run(stop.signal).finally(async () => {
        running.delete(key);
        await unlock(key).catch(() => undefined);
      });
      running.set(key, { ...fields, stop, done });
    },
    async replaced() {
      const now = await pidOf();
      if (now === pid) return null;
      const was = pid;
      pid = now;
      return { was, now };
    },
    stopAll,
    end: () => locks.end({ timeout: 5 }),
  };
}
