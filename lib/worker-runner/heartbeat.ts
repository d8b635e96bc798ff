// Worker heartbeats: each worker process (consumer, redrive, maintenance, search indexer,
// connectors) upserts a row every WORKER_HEARTBEAT_MS through the same Postgres pool its work uses,
// so a process whose database access hangs stops beating, and shows as stale. A clean stop deletes
// its row: a worker stopped on purpose is gone, not stale.
import { hostname } from 'node:os';
import { z } from 'zod';
import { isoTime } from '@/lib/wire';
import { pg } from '@/lib/db';
import { env } from '@/lib/env';
import { log } from '@/lib/log';

export const WORKER_KINDS = ['consumer', 'redrive', 'maintenance', 'search-indexer', 'connectors'] as const;
export type WorkerKind = (typeof WORKER_KINDS)[number];

/** A beat older than this is stale: three missed beats, and never under 15 s (a slow commit is not a stall). */
export const staleAfterMs = (beatMs = env().WORKER_HEARTBEAT_MS) => Math.max(3 * beatMs, 15_000);
/** Rows of processes gone this long without a goodbye are forgotten (a host removed for good). */
const FORGET_AFTER_MS = 24 * 3_600_000;
/** A beat that gets no answer in this long counts as missed (and the next one tries again). */
const BEAT_TIMEOUT_MS = 10_000;

export interface Heartbeat {
  stop(): Promise<void>;
}

export function startHeartbeat(kind: WorkerKind, beatMs = env().WORKER_HEARTBEAT_MS): Heartbeat {
  const instance = `${hostname()}:${process.pid}`;
  const startedAt = new Date();
  let failing = false;
  let beating: Promise<void> | null = null;
  const beat = () => {
    beating ??= Promise.race([
      pg()`
        INSERT INTO worker_heartbeats (kind, instance, pid, started_at, beat_at) VALUES (${kind}, ${instance}, ${process.pid}, ${startedAt}, now())
        ON CONFLICT (kind, instance) DO UPDATE SET beat_at = now()`,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer in ${BEAT_TIMEOUT_MS} ms`)), BEAT_TIMEOUT_MS).unref()),
    ])
      .then(() => {
        if (failing) log.info({ kind }, 'heartbeat written again');
        failing = false;
      })
      .catch((err: unknown) => {
        if (!failing) log.warn({ kind, err: String(err) }, 'heartbeat not written; trying again');
        failing = true;
      })
      .finally(() => {
        beating = null;
      });
  };
  beat();
  const timer = setInterval(beat, beatMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await beating;
      await pg()`DELETE FROM worker_heartbeats WHERE kind = ${kind} AND instance = ${instance}`.catch(() => undefined);
    },
  };
}

export const WorkerKindHealth = z.object({
  kind: z.string(),
  instances: z.int().describe('Processes of this kind with a heartbeat on record (live or stale)'),
  lastBeatAt: isoTime,
  ageSeconds: z.number(),
  stale: z.boolean().describe('No process of this kind has beaten within staleAfterMs'),
});
export type WorkerKindHealth = z.infer<typeof WorkerKindHealth>;

/** Every kind with a heartbeat on record, by its newest beat. */
export async function workerHeartbeats(now: Date = new Date()): Promise<WorkerKindHealth[]> {
  const rows = await pg()<{ kind: string; instances: number; last: Date }[]>`
    SELECT kind, count(*)::int AS instances, max(beat_at) AS last FROM worker_heartbeats
    WHERE beat_at > ${new Date(now.getTime() - FORGET_AFTER_MS)} GROUP BY kind ORDER BY kind`;
  const stale = staleAfterMs();
  return rows.map((r) => {
    const age = Math.max(0, now.getTime() - r.last.getTime());
    return { kind: r.kind, instances: r.instances, lastBeatAt: r.last.toISOString(), ageSeconds: Math.round(age / 1000), stale: age > stale };
  });
}
