// The redrive destination port: what the redrive engine hands a destination and what it answers.
// The connectors and the runtime implement it; lib/redrive/destinations picks one per source.
import type { SourceKind } from '@/lib/model/source-kind';

/** A dead letter on its way back, as the runner hands it to a destination. */
export interface OutgoingRedrive {
  deadLetterId: bigint;
  messageId: string;
  payload: Uint8Array;
  contentType: string | null;
  /** What goes out: the edited copy's headers when the item names a version, else the original's. */
  headers: Record<string, unknown>;
  /**
   * The original dead letter's headers as the broker gave them, never editable: a connector reads
   * where the message goes back to (exchange, subject, queue, job) from these, never from `headers`.
   */
  origin: Record<string, unknown>;
  /** The dead letter's redrive count; the message goes out with one more. */
  redriveCount: number;
  enqueuedAt: Date | null;
  orderingKey: string | null;
  idempotencyKey: string | null;
  correlationId: string | null;
}

export type DeliveryResult =
  | { ok: true /** the destination answered for the consumer (HTTP 2xx); else the outcome comes later */; acknowledged: boolean }
  | {
      ok: false;
      error: string;
      /**
       * Whose failure this item's is; when absent, the destination's `failures`. 'refused': the
       * destination refuses the redrive itself (no such queue, access denied, an action the server
       * does not know, no known target): not an outage, so the task pauses and `error` says what to
       * set; the item stays pending for when it is fixed. 'gone': the message is no longer where the
       * source keeps it (a Sidekiq job retried, deleted or trimmed in Sidekiq since the import), so
       * nothing was sent and nothing should be: the item is skipped with `error` as its reason, its
       * dead letter stays open, and the breaker does not count it (the destination is healthy).
       */
      failure?: 'message' | 'infrastructure' | 'refused' | 'gone';
    };

export interface RedriveDestination {
  readonly description: string;
  /**
   * 'message': a failure is the message's (retried with backoff, counted by the circuit breaker);
   * 'infrastructure': Triage's own queue is unavailable (wait and retry, the breaker does not count it).
   */
  readonly failures: 'message' | 'infrastructure';
  deliver(batch: OutgoingRedrive[], signal: AbortSignal): Promise<DeliveryResult[]>;
  /**
   * Batches the runner may have in delivery at once (it claims the next while one is on its way, so
   * a slow destination keeps the pace); 1 keeps one batch's sends before the next's, as a FIFO
   * queue's order needs. The runner's own limit when absent.
   */
  readonly maxInFlight?: number;
  /** Releases what the destination holds open (a broker connection); called once when the run ends. */
  close?(): Promise<void>;
}

export interface DestinationSource {
  id: string;
  name: string;
  kind: SourceKind;
  redriveUrl: string | null;
  redriveSecret: string | null;
  connection: unknown;
  connectionSecret: Uint8Array | null;
  retentionSeconds: number;
  maxRedrives: number;
}
