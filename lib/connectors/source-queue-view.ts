// The read side of source_queue_readings (written by readSourceQueues, lib/connectors/source-queue.ts):
// what the source page, the SLA board, GET /api/v1/sources/:source, /api/metrics and the alarms know
// of a connector source's source queue. Reads only; no broker is called from here.
import { z } from 'zod';
import { db } from '@/lib/db';
import { MINUTE, systemClock } from '@/lib/clock';
import { noConsumerSeen } from '@/lib/model/alarm-rules';
import { dateTime } from '@/lib/wire';

/** A reading not refreshed for this long is stale (the maintenance worker is behind or down). */
export const SOURCE_QUEUE_STALE_MS = 2 * MINUTE;

export const SourceQueueView = z.object({
  queue: z.string().nullable().describe('The source queue read (the queue the consumer reads, not the DLQ); null when none is configured'),
  depth: z.int().nullable().describe('Messages waiting for a consumer, at readAt'),
  inFlight: z.int().nullable().describe('Messages handed to a consumer and not yet acknowledged; null when the broker does not tell'),
  consumers: z.int().nullable().describe('Consumers attached; null when the broker does not tell (SQS)'),
  oldestAgeSeconds: z
    .int()
    .nullable()
    .describe('Age of the oldest waiting message at readAt; null when none waits or the broker does not tell (SQS, RabbitMQ over AMQP)'),
  noConsumer: z.boolean().describe('Messages wait and nothing consumes them (for SQS: none in flight)'),
  readAt: dateTime.nullable().describe('Last successful read'),
  stale: z.boolean().describe('The last read failed, or none succeeded for two minutes: the figures are the last known'),
  staleReason: z.string().nullable().describe('Why the reading is stale, in words'),
});
export type SourceQueueView = z.infer<typeof SourceQueueView>;

type ReadingRow = {
  sourceId: string;
  queue: string | null;
  depth: bigint | null;
  inFlight: bigint | null;
  consumers: number | null;
  oldestAgeSeconds: number | null;
  readAt: Date | null;
  error: string | null;
  errorAt: Date | null;
};

/** Whether a stored reading may be acted on at `now`, and if not, why. */
export function staleness(r: Pick<ReadingRow, 'readAt' | 'error' | 'errorAt'>, now: Date): string | null {
  if (r.error && (!r.readAt || (r.errorAt && r.errorAt >= r.readAt))) return r.error;
  if (!r.readAt) return 'not read yet';
  if (now.getTime() - r.readAt.getTime() > SOURCE_QUEUE_STALE_MS) return 'not read for over two minutes (is the maintenance worker running?)';
  return null;
}

export function sourceQueueView(r: ReadingRow, now: Date): SourceQueueView {
  const staleReason = staleness(r, now);
  const depth = r.depth === null ? null : Number(r.depth);
  const inFlight = r.inFlight === null ? null : Number(r.inFlight);
  return {
    queue: r.queue,
    depth,
    inFlight,
    consumers: r.consumers,
    oldestAgeSeconds: r.oldestAgeSeconds,
    noConsumer: depth !== null && noConsumerSeen({ depth, inFlight, consumers: r.consumers }),
    readAt: r.readAt,
    stale: staleReason !== null,
    staleReason,
  };
}

/** The stored readings of these sources by id; a source never read has no entry. */
export async function sourceQueueReadings(sourceIds: string[], now: Date = systemClock.now()): Promise<Map<string, SourceQueueView>> {
  if (sourceIds.length === 0) return new Map();
  const rows = await db().sourceQueueReading.findMany({ where: { sourceId: { in: sourceIds } } });
  return new Map(rows.map((r) => [r.sourceId, sourceQueueView(r, now)]));
}
