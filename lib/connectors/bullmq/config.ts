// A BullMQ source's settings: another application's queue, by name and key prefix, on a Redis whose
// URL (it may carry a password) is the source's secret.
import { z } from 'zod';

export const bullmqConfigSchema = z
  .object({
    /** The application's queue name (BullMQ refuses ":" in queue names). */
    queue: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .regex(/^[^:\s]+$/, 'a BullMQ queue name (no ":" or spaces)'),
    /** The application's BullMQ key prefix. */
    prefix: z.string().trim().min(1).max(100).regex(/^\S+$/, 'no spaces').default('bull'),
    /**
     * After a failed job's row committed, remove the job from Redis. Off by default: the job stays
     * in the failed set, so the application's own tools (bull-board, its retry scripts) keep working.
     */
    removeAfterImport: z.boolean().default(false),
    /** Failed jobs per write to Postgres. */
    batchSize: z.number().int().min(1).max(5_000).default(500),
    /** When idle and no "failed" event arrived, look at the failed set this often anyway. */
    pollMs: z.number().int().min(100).max(600_000).default(5_000),
    /**
     * Each look rereads the failed set from this far before the newest failure imported: a worker
     * whose clock lags, or whose failure landed late, still scores its job behind the cursor.
     */
    lookbackMs: z.number().int().min(0).max(3_600_000).default(10_000),
  })
  .strict();
export type BullmqConfig = z.infer<typeof bullmqConfigSchema>;

export const bullmqSecretSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^rediss?:\/\/[^\s]+$/i, 'a redis:// or rediss:// URL'),
  })
  .strict();
export type BullmqSecret = z.infer<typeof bullmqSecretSchema>;
