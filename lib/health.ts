// Readiness of what Triage stands on. Redis must not evict keys: BullMQ keeps locks and job state
// there, and an evicting policy silently loses them. Workers: every kind with a heartbeat on
// record is expected, and health is not ok while one is stale (lib/worker-runner/heartbeat.ts).
import { z } from 'zod';
import { db } from './db';
import { redis } from './redis';
import { WorkerKindHealth, workerHeartbeats } from './worker-runner/heartbeat';

const check = z.object({ ok: z.boolean(), error: z.string().optional() });
const operatorOnly = 'Only for an admin (token or session)';

/** GET /api/health: ok for anyone; each check for an admin. */
export const HealthView = z.object({
  ok: z.boolean(),
  postgres: check.optional().describe(operatorOnly),
  redis: check
    .extend({ maxmemoryPolicy: z.string().optional().describe('Must be noeviction: BullMQ loses locks and jobs otherwise') })
    .optional()
    .describe(operatorOnly),
  workers: check
    .extend({ kinds: z.array(WorkerKindHealth), stale: z.array(z.string()).describe('Kinds with no recent heartbeat') })
    .optional()
    .describe(operatorOnly),
});
export type Health = Required<z.infer<typeof HealthView>>;

function timeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`no answer in ${ms} ms`)), ms).unref())]);
}

export async function checkHealth(opts: { now?: Date } = {}): Promise<Health> {
  const [pg, rd, workers] = await Promise.all([
    timeout(db().$queryRaw`SELECT 1`, 3_000).then(
      () => ({ ok: true }),
      (e: Error) => ({ ok: false, error: `Postgres unreachable: ${e.message}` }),
    ),
    timeout(redis().config('GET', 'maxmemory-policy') as Promise<string[]>, 3_000).then(
      (r) => {
        const policy = r[1];
        return policy === 'noeviction'
          ? { ok: true, maxmemoryPolicy: policy }
          : { ok: false, maxmemoryPolicy: policy, error: `Redis maxmemory-policy is "${policy}"; BullMQ needs "noeviction" or it loses locks and jobs` };
      },
      (e: Error) => ({ ok: false, error: `Redis unreachable: ${e.message}` }),
    ),
    timeout(workerHeartbeats(opts.now), 3_000).then(
      (kinds) => {
        const stale = kinds.filter((k) => k.stale).map((k) => k.kind);
        return { ok: stale.length === 0, kinds, stale };
      },
      // No driver text: Postgres's own entry says why (and the unauthenticated answer says only ok / not ok).
      () => ({ ok: false, kinds: [], stale: [], error: 'worker heartbeats unreadable' }),
    ),
  ]);
  return { ok: pg.ok && rd.ok && workers.ok, postgres: pg, redis: rd, workers };
}
