// What the two connectors that receive from a queue with a visibility timeout share (SQS, Azure
// Storage queues): a received message stays hidden while Triage writes it, several receives run at
// once, and what they bring is written to Postgres in batches.
import { z } from 'zod';

/** The receive fields of such an import; `maxVisibilitySeconds` is the broker's own cap. */
export function visibilityReceiveFields(maxVisibilitySeconds: number) {
  return {
    /**
     * How long a received message stays hidden while Triage writes it. After a crash it reappears
     * after this; a failed write releases it at once.
     */
    visibilityTimeoutSeconds: z.number().int().min(1).max(maxVisibilitySeconds).default(120),
    /** Receives running at once (each returns at most 10 messages on SQS, 32 on Azure). */
    pollers: z.number().int().min(1).max(32).default(4),
    /** Dead letters per write to Postgres. */
    batchSize: z.number().int().min(10).max(1_000).default(200),
  };
}
