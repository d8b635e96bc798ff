// A Sidekiq source's settings: another application's Sidekiq, on a Redis whose URL (it may carry a
// password) is the source's secret, under the application's namespace if it has one.
import { z } from 'zod';

export const sidekiqConfigSchema = z
  .object({
    /**
     * The application's redis-namespace, if it uses one: its keys are then "<namespace>:dead",
     * "<namespace>:queue:<name>"… Without one, Sidekiq's keys are at the top of the Redis database.
     */
    namespace: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .regex(/^[^\s:]+(:[^\s:]+)*$/, 'a redis-namespace name (no spaces, no leading or trailing ":")')
      .optional(),
    /**
     * After a dead job's row committed, remove it from the dead set. Off by default: the job stays,
     * so Sidekiq's Web UI (its Dead tab, Retry, Delete) keeps working.
     */
    removeAfterImport: z.boolean().default(false),
    /** The queue watched beside the dead set (its depth and latency); default: the newest dead job's queue. */
    sourceQueue: z.string().trim().min(1).max(255).regex(/^\S+$/, 'no spaces').optional(),
    /**
     * Also import jobs still in the retry set once their retry_count reaches this (Sidekiq counts
     * from 0 at the first failure); unset: the dead set only. They stay in the retry set (Sidekiq
     * retries them as it would), and each later failure is the next generation.
     */
    retryCountAtLeast: z.number().int().min(0).max(1_000).optional(),
    /**
     * Sidekiq's dead_max_jobs and dead_timeout_in_seconds as the application sets them (they live in
     * its configuration, not in Redis): the dead set's cap and age limit, checked for traps.
     */
    deadMaxJobs: z.number().int().min(1).max(100_000_000).default(10_000),
    deadTimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(100 * 365 * 86_400)
      .default(180 * 86_400),
    /** Dead jobs per write to Postgres. */
    batchSize: z.number().int().min(1).max(5_000).default(1_000),
    /** When idle, look at the dead set this often. */
    pollMs: z.number().int().min(100).max(600_000).default(2_000),
    /**
     * Each look rereads the dead set from this far before the newest death seen: a Sidekiq process
     * whose clock lags still scores its job behind the cursor.
     */
    lookbackMs: z.number().int().min(0).max(3_600_000).default(10_000),
  })
  .strict();
export type SidekiqConfig = z.infer<typeof sidekiqConfigSchema>;

export const sidekiqSecretSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^rediss?:\/\/[^\s]+$/i, 'a redis:// or rediss:// URL'),
  })
  .strict();
export type SidekiqSecret = z.infer<typeof sidekiqSecretSchema>;

/** Key names of the application's Sidekiq, as Sidekiq (through redis-namespace) spells them. */
export function keysOf(config: Pick<SidekiqConfig, 'namespace'>) {
  const ns = config.namespace ? `${config.namespace}:` : '';
  return {
    dead: `${ns}dead`,
    retry: `${ns}retry`,
    queues: `${ns}queues`,
    processes: `${ns}processes`,
    queue: (name: string) => `${ns}queue:${name}`,
    /** Keys one of which any Sidekiq that has run holds: to tell a wrong database or namespace. */
    marks: [`${ns}queues`, `${ns}processes`, `${ns}dead`, `${ns}retry`, `${ns}schedule`, `${ns}stat:processed`, `${ns}stat:failed`],
  };
}
