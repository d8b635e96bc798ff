// The connector interface (DESIGN.md "Connectors"). A connector source reads a broker's own
// dead-letter queue (import, run by workers/connectors.ts through lib/connectors/supervisor.ts) and
// is a redrive destination (run by the redrive engine, lib/redrive/destinations). One folder per
// broker under lib/connectors/, registered in lib/connectors/index.ts.
import type { z } from 'zod';
import type { NewDeadLetter, RecordedDeadLetter } from '@/lib/model/dead-letter';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import type { ConnectorSecret } from './secrets';
import { type Trap, trapLine } from './traps';

import type { ConnectorKind } from '@/lib/model/source-kind';

// The kinds are part of the model (a source's kind), so that what sits below the connectors can name them.
export { CONNECTOR_KINDS, isConnectorKind, type ConnectorKind } from '@/lib/model/source-kind';

/** A connector source as a connector sees it: its settings parsed, its secrets decrypted. */
export interface ConnectorSource<Config, Secret extends ConnectorSecret = ConnectorSecret> {
  id: string;
  name: string;
  kind: ConnectorKind;
  config: Config;
  secret: Secret;
  retentionSeconds: number;
  maxRedrives: number;
}

/**
 * Why a connector could not do its work, in words a user can act on. Connectors throw this (never a
 * raw driver error, whose text may echo a credential); the supervisor writes `message` to the
 * source's health and backs off.
 */
export class ConnectorError extends Error {
  constructor(
    /** 'storage': Triage's own database refused the write (the batch stays on the broker). */
    readonly kind: 'unreachable' | 'auth' | 'not_found' | 'config' | 'refused' | 'storage',
    message: string,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

/**
 * Whose failure a redrive destination's connection error is: credentials, a missing vhost, stream or
 * server feature are refusals (the task pauses with the reason: retrying cannot help until someone
 * changes something); anything else, unreachable or not understood, is the infrastructure's and is
 * retried with backoff.
 */
export function deliveryFailureOf(err: ConnectorError): 'refused' | 'infrastructure' {
  return err.kind === 'auth' || err.kind === 'not_found' || err.kind === 'config' ? 'refused' : 'infrastructure';
}

/**
 * A batch delivered over one connection: when it cannot be had, every item fails alike (`asError`
 * words why, deliveryFailureOf says whose failure it is); else each item is sent at once and
 * answers for itself.
 */
export async function deliverOver<C>(
  batch: OutgoingRedrive[],
  connect: () => Promise<C>,
  asError: (err: unknown) => ConnectorError,
  send: (connection: C, item: OutgoingRedrive) => Promise<DeliveryResult>,
): Promise<DeliveryResult[]> {
  let connection: C;
  try {
    connection = await connect();
  } catch (err) {
    const e = asError(err);
    const failure = deliveryFailureOf(e);
    return batch.map(() => ({ ok: false, error: e.message, failure }));
  }
  return Promise.all(batch.map((item) => send(connection, item)));
}

/** What a "test connection" learnt. Never throws: a failure is `ok: false` with a clear `error`. */
export interface ProbeReport {
  ok: boolean;
  /** One line for the page, e.g. "queue orders.dlq exists: 12 messages, 0 consumers". */
  summary: string;
  /** Facts by name (exists, depth, consumers, arguments…), shown as a list. */
  facts: Record<string, string | number | boolean | null>;
  error?: string;
  /** What works but will hurt, in words: the warning traps' lines and any other caution (e.g. SQS: several queues share the DLQ). */
  warnings?: string[];
  /**
   * The broker's dead-letter settings checked against the known traps (lib/connectors/traps.ts),
   * warnings and info notes (what could not be read); absent when the probe failed.
   */
  traps?: Trap[];
}

/**
 * The report of a probe that found the queue: the warning traps' lines and the probe's other
 * cautions become `warnings`, and the summary counts them, so the one line already says to look.
 */
export function foundQueueReport(summary: string, facts: ProbeReport['facts'], traps: Trap[], notes: string[] = []): ProbeReport {
  const warnings = [...traps.filter((t) => t.severity === 'warning').map(trapLine), ...notes];
  return {
    ok: true,
    summary: warnings.length ? `${summary}; ${warnings.length} warning${warnings.length > 1 ? 's' : ''}` : summary,
    facts,
    traps,
    ...(warnings.length ? { warnings } : {}),
  };
}

/**
 * What the broker tells of a connector source's source queue: the queue its application's consumer
 * reads, not the dead-letter queue Triage imports. An empty DLQ is no proof of health when nothing
 * consumes the source queue (nothing fails, so nothing is dead-lettered).
 */
export interface SourceQueueState {
  /** The queue read, as the page names it (RabbitMQ queue, SQS queue name, stream/consumer, BullMQ queue). */
  queue: string;
  /** Messages ready for a consumer. */
  depth: number;
  /** Messages handed to a consumer and not yet acknowledged; null when the broker does not tell. */
  inFlight: number | null;
  /** Consumers attached; null when the broker does not tell (SQS has no such figure). */
  consumers: number | null;
  /** Age of the oldest waiting message, seconds; null when none waits or the broker does not tell. */
  oldestAgeSeconds: number | null;
}

/** What an import loop reports besides the dead letters it records. */
export interface HealthUpdate {
  /** Messages left on the broker (queue depth), when known. */
  lag?: number | null;
}

/** Where an import loop delivers, given by the supervisor. */
export interface ImportSink {
  /**
   * Record a bounded batch through the ingest write path (recordDeadLetters) and resolve once it
   * committed: only then may the connector acknowledge the batch on the broker (write, then
   * acknowledge). Rejects when the write failed: the connector leaves the batch on the broker (nack
   * with requeue, or not acknowledged) and backs off. Counts the batch into the source's health.
   */
  record(batch: NewDeadLetter[]): Promise<RecordedDeadLetter[]>;
  /** A successful poll (connected, maybe idle), with what it learnt. Cheap: writes are coalesced. */
  health(update?: HealthUpdate): void;
}

export interface Connector<Config, Secret extends ConnectorSecret = ConnectorSecret> {
  kind: ConnectorKind;
  /** Non-secret settings (sources.connection): host, queue, prefix, error-text mapping… */
  configSchema: z.ZodType<Config>;
  /** The secret fields (sources.connection_secret, encrypted); every connector has at least `url`. */
  secretSchema: z.ZodType<Secret>;
  /** What a "test connection" can learn (exists, depth, consumers, arguments…): clear errors, never throws. */
  probe(source: ConnectorSource<Config, Secret>, signal?: AbortSignal): Promise<ProbeReport>;
  /**
   * The import side: a long-running reader that delivers bounded batches to `sink.record` and
   * acknowledges each on the broker only after it resolved. Returns once `signal` aborted (pause,
   * removal, shutdown) with the batch in flight either committed and acknowledged or left on the
   * broker. Throws (a ConnectorError) when the connection is lost or refused; the supervisor
   * reconnects with backoff.
   */
  openImport(source: ConnectorSource<Config, Secret>, sink: ImportSink, signal: AbortSignal): Promise<void>;
  /**
   * The source queue's state, read on the maintenance cycle (lib/connectors/source-queue.ts). Throws a
   * ConnectorError when the broker cannot be read, or a 'config' one when the settings name no source queue.
   */
  readSourceQueue(source: ConnectorSource<Config, Secret>, signal: AbortSignal): Promise<SourceQueueState>;
  /** The redrive side: a destination the redrive engine calls, closed when the run ends. */
  redriveDestination(source: ConnectorSource<Config, Secret>): RedriveDestination;
  /**
   * The source's redrive URL, when one is set, is where its redrives go (a signed POST, as an ingest
   * source's) instead of the broker: a queue fed by a service (a Lambda's failures) may have no queue
   * to go back to, only the function's HTTP endpoint.
   */
  redrivesToUrl?: boolean;
}
