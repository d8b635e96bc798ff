// An Amazon SQS source's settings. The location is the dead-letter queue's URL; the source queue
// (where a redrive sends) is configured, or found from the DLQ (see redrive.ts). Region, endpoint and
// credentials are per source, or the AWS SDK's usual environment (AWS_REGION, AWS_ACCESS_KEY_ID…,
// instance roles) when left out: the SDK reads those itself.
import { z } from 'zod';
import { errorTextMappingSchema } from '../error-text';
import { visibilityReceiveFields } from '../receive-queue-config';
import { SQS_ENVELOPES } from './envelope';

const queueUrl = z.string().trim().url().max(1000);

export const sqsConfigSchema = z
  .object({
    /** The dead-letter queue: what Triage imports. */
    queueUrl,
    /** The queue a redrive sends to; else the message's DeadLetterQueueSourceArn, else ListDeadLetterSourceQueues. */
    sourceQueueUrl: queueUrl.optional(),
    /** An SQS-compatible endpoint (http://localhost:4566); else the SDK's endpoint for the region. */
    endpoint: z.string().trim().url().max(1000).optional(),
    /** Else the region in the queue URL (sqs.<region>.amazonaws.com), else the SDK's environment. */
    region: z
      .string()
      .trim()
      .regex(/^[a-z0-9-]{2,40}$/, 'a region like eu-west-1')
      .optional(),
    /** Long-poll wait of each receive (SQS allows 0–20 s; 20 keeps an idle queue to 3 requests a minute). */
    waitTimeSeconds: z.number().int().min(0).max(20).default(20),
    ...visibilityReceiveFields(12 * 3600),
    /** How long a partial batch waits for more receives before it is written. */
    batchWaitMs: z.number().int().min(1).max(10_000).default(50),
    /**
     * What wraps the failed events in this queue (envelope.ts): a Lambda on-failure destination's
     * records, Lambda's or an EventBridge target's DLQ attributes, an SNS subscription's notifications;
     * `auto` recognises each by its documented shape, `none` keeps every body as it is.
     */
    envelope: z.enum(SQS_ENVELOPES).default('auto'),
    errorText: errorTextMappingSchema.optional(),
  })
  .strict();
export type SqsConfig = z.infer<typeof sqsConfigSchema>;

export const sqsSecretSchema = z
  .object({
    accessKeyId: z.string().trim().min(1).max(256).optional(),
    secretAccessKey: z.string().trim().min(1).max(256).optional(),
    sessionToken: z.string().trim().min(1).max(4096).optional(),
  })
  .strict()
  .refine((s) => !!s.accessKeyId === !!s.secretAccessKey, 'an access key id and a secret access key go together');
export type SqsSecret = z.infer<typeof sqsSecretSchema>;
