// What a new dead letter is, as every writer hands it in (the broker runtime, the connectors, the
// ingest API), and what the write answers: the one shape, below all of them.
import { z } from 'zod';
import type { DeadLetterReason } from '@/lib/enums';
import { isoTime } from '@/lib/wire';

export { DEAD_LETTER_REASONS, type DeadLetterReason } from '@/lib/enums';

/** RabbitMQ x-death style: one entry per (reason, error), with a count. */
export const FailureEntry = z.object({
  reason: z.string(),
  errorType: z.string().nullable(),
  errorMessage: z.string().nullable(),
  count: z.int(),
  firstAt: isoTime,
  lastAt: isoTime,
  queue: z.string().optional().describe('Where a broker says it happened (RabbitMQ x-death: the queue, exchange and routing keys)'),
  exchange: z.string().optional(),
  routingKeys: z.array(z.string()).optional(),
});
export type FailureEntry = z.infer<typeof FailureEntry>;

export interface NewDeadLetter {
  messageId: string;
  generation?: number;
  payload: Uint8Array;
  contentType?: string | null;
  headers?: Record<string, unknown>;
  reason: DeadLetterReason;
  errorType?: string | null;
  errorMessage?: string | null;
  errorStack?: string | null;
  receiveCount?: number;
  redriveCount?: number;
  enqueuedAt?: Date | null;
  firstFailedAt?: Date | null;
  lastFailedAt?: Date | null;
  deadAt?: Date;
  consumerName?: string | null;
  consumerVersion?: string | null;
  correlationId?: string | null;
  idempotencyKey?: string | null;
  orderingKey?: string | null;
  partition?: number | null;
  offset?: bigint | number | null;
  failureHistory?: FailureEntry[];
  /** The whole payload is sensitive: masked for everyone until revealed (see lib/deadletters/sensitive.ts). */
  sensitive?: boolean;
}

export const RecordedDeadLetter = z.object({
  messageId: z.string(),
  id: z.string().describe('Dead-letter id (a decimal string)'),
  sha256: z.string().describe('SHA-256 of the stored payload bytes, hex'),
  created: z.boolean().describe('false: this message id was already stored (idempotent retry)'),
});
export type RecordedDeadLetter = z.infer<typeof RecordedDeadLetter>;

export const MAX_STACK_CHARS = 8_000;
export const MAX_ERROR_MESSAGE_CHARS = 4_000;
