// A RabbitMQ source's settings. The location is the queue bound to the dead-letter exchange; the
// secret is the AMQP URL with its credentials (amqp[s]://user:pass@host:port/vhost).
import { z } from 'zod';
import { errorTextMappingSchema } from '../error-text';

const queueName = z.string().trim().min(1).max(255);

export const rabbitmqConfigSchema = z
  .object({
    /** The queue the dead-letter exchange routes to: what Triage imports. */
    queue: queueName,
    /**
     * Redrive to this queue through the default exchange, instead of the original exchange and
     * routing keys of the message's first x-death entry.
     */
    targetQueue: queueName.optional(),
    /**
     * The queue the application's consumer reads (what dead-letters into `queue`), watched for depth
     * and consumers on the maintenance cycle; else `targetQueue`, where a redrive sends.
     */
    sourceQueue: queueName.optional(),
    /** The RabbitMQ management API (http://host:15672) on the broker's own host (the AMQP credentials go nowhere else), for "test connection" to read the queue's arguments. */
    managementUrl: z.string().trim().url().optional(),
    /** Unacknowledged messages the broker may push at once. */
    prefetch: z.number().int().min(1).max(10_000).default(6_000),
    /** Dead letters per write to Postgres (at most prefetch). */
    batchSize: z.number().int().min(1).max(5_000).default(1_000),
    /** How long a partial batch waits for more messages before it is written. */
    batchWaitMs: z.number().int().min(1).max(10_000).default(100),
    errorText: errorTextMappingSchema.optional(),
  })
  .strict();
export type RabbitmqConfig = z.infer<typeof rabbitmqConfigSchema>;

export const rabbitmqSecretSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^amqps?:\/\/[^\s]+$/i, 'an amqp:// or amqps:// URL'),
  })
  .strict();
export type RabbitmqSecret = z.infer<typeof rabbitmqSecretSchema>;
