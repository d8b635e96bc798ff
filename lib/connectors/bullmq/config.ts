// A BullMQ source's settings: another application's queue, by name and key prefix, on a Redis whose
// URL (it may carry a password) is the source's secret.
import { z } from 'zod';
import { failedSetImportFields, type RedisUrlSecret, redisUrlSecretSchema } from '../redis-source-config';

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
    ...failedSetImportFields({ batchSize: 500, pollMs: 5_000 }),
  })
  .strict();
export type BullmqConfig = z.infer<typeof bullmqConfigSchema>;

export const bullmqSecretSchema = redisUrlSecretSchema;
export type BullmqSecret = RedisUrlSecret;
