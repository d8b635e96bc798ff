// "Test connection" for a Sidekiq source: Redis answers, the database (and namespace) holds a
// Sidekiq, and what it holds: dead, retrying, queues, processes; its dead set checked against the
// known traps (./traps.ts). Reads only; never throws.
import { trapLine } from '../traps';
import type { ConnectorSource, ProbeReport } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';
import { assertSidekiqThere, probeReport } from './connection';
import { sidekiqTraps } from './traps';

/** Dead jobs looked at for their options (newest first). */
const JOBS_SEEN = 50;

export function probeSidekiq(source: ConnectorSource<SidekiqConfig, SidekiqSecret>): Promise<ProbeReport> {
  const { config, secret } = source;
  const keys = keysOf(config);
  return probeReport(secret, `${source.name}:probe`, async (client) => {
    await assertSidekiqThere(client, config, secret);
    const [dead, retry, queues, processes] = await Promise.all([
      client.zcard(keys.dead),
      client.zcard(keys.retry),
      client.smembers(keys.queues),
      client.scard(keys.processes),
    ]);
    const facts = { reachable: true, exists: true, dead, retry, queues: queues.sort().join(', ') || null, processes };
    const noRetry = new Set<string>();
    for (const m of await client.zrevrange(keys.dead, 0, JOBS_SEEN - 1)) {
      try {
        const job = JSON.parse(m) as { retry?: unknown; class?: unknown };
        if (job.retry === 0 && typeof job.class === 'string') noRetry.add(job.class);
      } catch {
        // not a job: the import records it as it is
      }
    }
    const traps = sidekiqTraps(`Sidekiq's dead set ${keys.dead}`, {
      deadMaxJobs: config.deadMaxJobs,
      deadTimeoutSeconds: config.deadTimeoutSeconds,
      dead,
      removeAfterImport: config.removeAfterImport,
      noRetryClasses: [...noRetry],
    });
    const warnings = traps.filter((t) => t.severity === 'warning').map(trapLine);
    const summary = `Sidekiq found: ${dead} dead, ${retry} retrying, ${queues.length} queues, ${processes} processes`;
    return { ok: true, summary, facts, traps, ...(warnings.length ? { warnings } : {}) };
  });
}
