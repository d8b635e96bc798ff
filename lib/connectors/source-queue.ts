// The source queue beside the dead-letter queue. An empty DLQ is no proof of health when nothing
// consumes the source queue (a stopped consumer, an open circuit breaker: nothing fails, so nothing
// is dead-lettered). The maintenance cycle reads what each connector source's broker tells of its
// source queue (depth, in flight, consumers, oldest age) before the alarms are evaluated, and keeps it
// in source_queue_readings: the pages read that row (source-queue-view.ts) and never call a broker.
// A broker that does not answer within SOURCE_QUEUE_READ_TIMEOUT_MS leaves the last figures, marked
// stale with the reason; it never fails the cycle.
import { db } from '@/lib/db';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { systemClock, type Clock } from '@/lib/clock';
import { scrubSecrets } from './secrets';
import { connectorSourceOf, registeredConnectorKinds, type ConnectorSourceRow } from './index';
import { ConnectorError, type SourceQueueState } from './types';

/** Brokers read at once: a cycle of many sources stays bounded by a few timeouts, not their sum. */
const READ_CONCURRENCY = 8;
/**
 * No read starts after this much of a cycle: the alarms it precedes run every 15 s, and many silent
 * brokers must not hold them. The sources left wait for the next cycle, which starts with them.
 */
export const READ_BUDGET_MS = 10_000;

const SOURCE_COLUMNS = { id: true, name: true, kind: true, connection: true, connectionSecret: true, retentionSeconds: true, maxRedrives: true } as const;

/** Read one source's queue within the timeout; a ConnectorError (or its words) when it could not. */
async function readOne(row: ConnectorSourceRow, timeoutMs: number): Promise<SourceQueueState> {
  const { connector, source } = connectorSourceOf(row);
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort();
      reject(new ConnectorError('unreachable', `the broker did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([connector.readSourceQueue(source, ctl.signal), timeout]);
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    // A driver error may echo a credential: only the scrubbed words are kept.
    const text = err instanceof Error ? err.message : String(err);
    throw new ConnectorError('refused', scrubSecrets(text, source.secret));
  } finally {
    clearTimeout(timer);
  }
}

export interface SourceQueueReadResult {
  read: number;
  failed: { source: string; error: string }[];
  /** Sources not read this cycle: the budget ran out. */
  deferred: number;
}

/**
 * Read every connector source's source queue and store what was learnt (the maintenance cycle, before
 * the alarms). A failure is stored as the reading's error, the last figures kept; nothing throws but
 * Postgres itself.
 */
export async function readSourceQueues(
  clock: Clock = systemClock,
  opts: { timeoutMs?: number; budgetMs?: number; sourceIds?: string[] } = {},
): Promise<SourceQueueReadResult> {
  const timeoutMs = opts.timeoutMs ?? env().SOURCE_QUEUE_READ_TIMEOUT_MS;
  const budgetMs = opts.budgetMs ?? READ_BUDGET_MS;
  const found = await db().source.findMany({
    where: { kind: { in: registeredConnectorKinds() }, ...(opts.sourceIds ? { id: { in: opts.sourceIds } } : {}) },
    select: { ...SOURCE_COLUMNS, sourceQueue: { select: { readAt: true, errorAt: true } } },
  });
  // The longest unread first (never read before all): a cycle cut short by the budget leaves the
  // freshest readings, not the same sources, behind.
  const lastTried = (r: (typeof found)[number]) => Math.max(r.sourceQueue?.readAt?.getTime() ?? 0, r.sourceQueue?.errorAt?.getTime() ?? 0);
  const rows = found.sort((a, b) => lastTried(a) - lastTried(b)) as ConnectorSourceRow[];
  const result: SourceQueueReadResult = { read: 0, failed: [], deferred: 0 };
  // Counted from the first read: a slow query above must not leave a cycle with none.
  const started = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < rows.length) {
      if (Date.now() - started >= budgetMs) {
        result.deferred = rows.length - next;
        next = rows.length;
        break;
      }
      const row = rows[next++]!;
      try {
        const state = await readOne(row, timeoutMs);
        const at = clock.now();
        const figures = {
          queue: state.queue,
          depth: BigInt(state.depth),
          inFlight: state.inFlight === null ? null : BigInt(state.inFlight),
          consumers: state.consumers,
          oldestAgeSeconds: state.oldestAgeSeconds,
          readAt: at,
          error: null,
          errorAt: null,
        };
        await db().sourceQueueReading.upsert({ where: { sourceId: row.id }, create: { sourceId: row.id, ...figures }, update: figures });
        result.read++;
      } catch (err) {
        const error = err instanceof ConnectorError || err instanceof AppError ? err.message : 'the source queue could not be read';
        if (!(err instanceof ConnectorError)) log.warn({ err, source: row.name }, 'source queue read failed');
        const at = clock.now();
        // A source that names no source queue has nothing to keep: its figures are cleared.
        const unset = err instanceof ConnectorError && err.kind === 'config';
        await db().sourceQueueReading.upsert({
          where: { sourceId: row.id },
          create: { sourceId: row.id, error, errorAt: at },
          update: unset
            ? { queue: null, depth: null, inFlight: null, consumers: null, oldestAgeSeconds: null, readAt: null, error, errorAt: at }
            : { error, errorAt: at },
        });
        result.failed.push({ source: row.name, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, rows.length) }, lane));
  return result;
}
