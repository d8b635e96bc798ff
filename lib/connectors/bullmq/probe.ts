// "Test connection" for a BullMQ source: Redis answers, the queue exists (BullMQ writes a queue's
// meta hash when a Queue is first opened on it), and what it holds; the options of its most recent
// jobs checked against the known traps (./traps.ts). Reads only; never throws.
import type { ProbeReport } from '../types';
import type { ConnectorSource } from '../types';
import { redactUrl } from '../secrets';
import type { BullmqConfig, BullmqSecret } from './config';
import { appQueue, keysOf, openRedis, redisError } from './connection';
import { trapLine } from '../traps';
import { bullmqTraps, type BullmqJobSeen, type RemoveOnFail } from './traps';

/** Jobs looked at per state for their options (newest first). */
const JOBS_SEEN_PER_STATE = 20;

export async function probeBullmq(source: ConnectorSource<BullmqConfig, BullmqSecret>): Promise<ProbeReport> {
  const { config, secret } = source;
  const keys = keysOf(config);
  let client;
  try {
    client = await openRedis(secret, { name: `${source.name}:probe` });
  } catch (err) {
    const error = redisError(err, secret).message;
    return { ok: false, summary: error, facts: { reachable: false }, error };
  }
  const queue = appQueue(config, client);
  try {
    if (!(await client.exists(keys.meta))) {
      const error = `No such queue: BullMQ queue "${config.queue}" (prefix "${config.prefix}") has no ${keys.meta} key on Redis at ${redactUrl(secret.url)}`;
      return { ok: false, summary: error, facts: { reachable: true, exists: false }, error };
    }
    const counts = await queue.getJobCounts('failed', 'waiting', 'active', 'delayed', 'completed');
    const [version, paused] = await client.hmget(keys.meta, 'version', 'paused');
    const workers = await queue.getWorkersCount().catch(() => null); // CLIENT LIST may be denied to this user
    const facts = {
      reachable: true,
      exists: true,
      failed: counts.failed ?? 0,
      waiting: counts.waiting ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      completed: counts.completed ?? 0,
      workers,
      paused: paused === '1',
      version: version ?? null,
    };
    const seen = await queue.getJobs(['failed', 'wait', 'prioritized', 'delayed', 'active', 'completed'], 0, JOBS_SEEN_PER_STATE - 1, false);
    const jobs: BullmqJobSeen[] = seen
      .filter((j) => j)
      .map((j) => ({ name: j.name, attempts: j.opts.attempts, removeOnFail: j.opts.removeOnFail as RemoveOnFail }));
    const traps = bullmqTraps(config.queue, jobs);
    const warnings = traps.filter((t) => t.severity === 'warning').map(trapLine);
    const summary = `queue ${keys.base} exists: ${facts.failed} failed, ${facts.waiting} waiting, ${facts.active} active${workers === null ? '' : `, ${workers} workers`}`;
    return { ok: true, summary, facts, traps, ...(warnings.length ? { warnings } : {}) };
  } catch (err) {
    const error = redisError(err, secret).message;
    return { ok: false, summary: error, facts: { reachable: true }, error };
  } finally {
    await queue.close().catch(() => undefined);
    client.disconnect();
  }
}
