// A NATS JetStream source's settings. The location is an application's stream and its durable
// consumer (the one with `max_deliver`); the secret is the server URL, with credentials in it
// (nats://user:pass@host:4222, nats://token@host:4222) or beside it (token, or user and pass).
import { z } from 'zod';
import { errorTextMappingSchema } from '../error-text';

// JetStream names: no whitespace, ".", "*", ">", path separators (nats-server's isValidName).
const jetStreamName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[^\s.*>/\\]+$/, 'a JetStream name: no spaces, ".", "*", ">", "/" or "\\"');

export const natsConfigSchema = z
  .object({
    /** The application's stream holding the messages. */
    stream: jetStreamName,
    /** Its durable consumer whose `max_deliver` (or terminations) make dead letters. */
    consumer: jetStreamName,
    /** Delete each message from the stream once recorded (for work-queue streams, where it would stay forever). */
    deleteAfterImport: z.boolean().default(false),
    /** Advisories (dead letters) per write to Postgres. */
    batchSize: z.number().int().min(1).max(1_000).default(250),
    errorText: errorTextMappingSchema.optional(),
  })
  .strict();
export type NatsConfig = z.infer<typeof natsConfigSchema>;

export const natsSecretSchema = z
  .object({
    url: z
      .string()
      .trim()
      .regex(/^(nats|tls):\/\/[^\s]+$/i, 'a nats:// or tls:// URL'),
    token: z.string().min(1).optional(),
    user: z.string().min(1).optional(),
    pass: z.string().min(1).optional(),
  })
  .strict()
  .refine((s) => !(s.pass && !s.user), { message: 'a password needs a user', path: ['pass'] });
export type NatsSecret = z.infer<typeof natsSecretSchema>;
