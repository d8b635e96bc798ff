// A Sidekiq source's settings: another application's Sidekiq, on a Redis whose URL (it may carry a
// password) is the source's secret, under the application's namespace if it has one.
import { z } from 'zod';
import { failedSetImportFields, type RedisUrlSecret, redisUrlSecretSchema } from '../redis-source-config';

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
    ...failedSetImportFields({ batchSize: 1_000, pollMs: 2_000 }),
  })
  .strict();
export type SidekiqConfig = z.infer<typeof sidekiqConfigSchema>;

export const sidekiqSecretSchema = redisUrlSecretSchema;
export type SidekiqSecret = RedisUrlSecret;

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
