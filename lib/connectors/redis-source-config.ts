// What the two connectors that read another application's Redis share: the secret (the Redis URL,
// which may carry a password) and how an import polls a sorted set of failed jobs (BullMQ's failed
// set, Sidekiq's dead set) and writes what it finds.
import { z } from 'zod';

export const redisUrlSecretSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^rediss?:\/\/[^\s]+$/i, 'a redis:// or rediss:// URL'),
  })
  .strict();
export type RedisUrlSecret = z.infer<typeof redisUrlSecretSchema>;

/** The polling fields of a Redis failed-set import; each broker keeps its own defaults. */
export function failedSetImportFields(defaults: { batchSize: number; pollMs: number }) {
  return {
    /**
     * After a failed job's row committed, remove the job from Redis. Off by default: the job stays
     * where it is, so the application's own tools (bull-board, Sidekiq's Web UI) keep working.
     */
    removeAfterImport: z.boolean().default(false),
    /** Failed jobs per write to Postgres. */
    batchSize: z.number().int().min(1).max(5_000).default(defaults.batchSize),
    /** When idle, look at the failed set this often anyway. */
    pollMs: z.number().int().min(100).max(600_000).default(defaults.pollMs),
    /**
     * Each look rereads the set from this far before the newest failure seen: a worker whose clock
     * lags, or whose failure landed late, still scores its job behind the cursor.
     */
    lookbackMs: z.number().int().min(0).max(3_600_000).default(10_000),
  };
}
