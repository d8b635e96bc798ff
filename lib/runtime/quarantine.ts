// Where the dead-letter sweeper puts failed jobs Postgres refuses to store (issue 15): a sorted set
// of the source queue (job ids by when they were quarantined; the job hashes are kept). The alarm
// evaluation counts it, so a team lead sees the quarantine as a `quarantine` alarm on the source
// until an operator empties it.
import { queuePrefix, QUEUES } from '@/lib/queue';
import { redis } from '@/lib/redis';

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
  const pipeline = redis().pipeline();
  for (const name of sourceNames) pipeline.zcard(quarantineKey(name));
  let timer: NodeJS.Timeout | undefined;
  try {
    const results = await Promise.race([
      pipeline.exec(),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), timeoutMs);
      }),
    ]);
    if (!results) return null;
    const counts = new Map<string, number>();
    for (const [i, [err, n]] of results.entries()) {
      if (err) return null;
      counts.set(sourceNames[i]!, Number(n));
    }
    return counts;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}
