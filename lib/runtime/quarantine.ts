// Where the dead-letter sweeper puts failed jobs Postgres refuses to store: a sorted set
// of the source queue (job ids by when they were quarantined; the job hashes are kept). The alarm
// evaluation counts it, so a team lead sees the quarantine as a `quarantine` alarm on the source
// until an operator empties it.
import { producerRedis, queuePrefix, QUEUES } from '@/lib/queue';

/** The set's name within a queue (BullMQ's Queue.toKey of it is the Redis key). */
export const QUARANTINE_SET = 'triage-quarantine';

/** The Redis key of a source queue's quarantine, as Queue.toKey names it. */
export function quarantineKey(sourceName: string): string {
  return `${queuePrefix()}:${QUEUES.source(sourceName)}:${QUARANTINE_SET}`;
}

/**
 * How many jobs each source's quarantine holds, by source name. Null when Redis does not answer in
 * time: the caller keeps the alarms as they were rather than clear them for an unknown.
 */
export async function quarantinedCounts(sourceNames: readonly string[], timeoutMs = 3_000): Promise<Map<string, number> | null> {
  if (sourceNames.length === 0) return new Map();
  // The producer connection the queue module owns (closeQueues ends it), not a client of its own
  // that would keep a seeding script from exiting.
  const count = async (): Promise<Map<string, number> | null> => {
    const pipeline = producerRedis().pipeline();
    for (const name of sourceNames) pipeline.zcard(quarantineKey(name));
    const results = await pipeline.exec();
    if (!results || results.some(([err]) => err)) return null;
    return new Map(results.map(([, n], i): [string, number] => [sourceNames[i]!, Number(n)]));
  };
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      count(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs);
      }),
    ]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
