// The redrive side of the Sidekiq connector: what Sidekiq's "Retry Now" does, in one Lua script so
// that it is atomic: the job out of the set it was imported from (found by its score and jid, as
// Sidekiq's own SortedEntry#remove_job finds it), its queue in the "queues" set, and the job LPUSHed
// onto "queue:<name>", where Sidekiq's fetch reads it. The job's JSON keeps every field it had but
// the failure's (./job.ts redrivenJob): a fresh retry count, a new failed_at at its next death, and
// Triage's redrive count. Where it goes back to is read from the original's stored headers. A job
// the source left in the set and that is gone from it was retried, deleted or trimmed in Sidekiq:
// not pushed, and skipped (not failed) by the redrive.
import type { Redis } from 'ioredis';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import type { ConnectorSource } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';
import { redisError, redriveConnection } from './connection';
import { redrivenJob, REMOVED_HEADER } from './job';

// KEYS: the set, queue:<name>, queues. ARGV: score ('' when unknown), jid, job JSON, queue name,
// '1' when the job must still be in the set. Returns 1 when the job was taken out of the set, 0 when
// it was no longer there but goes back to its queue (Triage removed it after import, or the fact is
// unknown), -1 when it should have been there and is not: Sidekiq retried or deleted it since
// (its Web UI) or trimmed it (dead_max_jobs, dead_timeout_in_seconds), so pushing it would run it
// twice, or run a job the application let go: nothing is pushed.
const RETRY_NOW = `
local removed = 0
if ARGV[1] ~= '' then
  local needle = '"jid":"' .. ARGV[2] .. '"'
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])) do
    if string.find(m, needle, 1, true) then
      redis.call('ZREM', KEYS[1], m)
      removed = 1
      break
    end
  end
  if removed == 0 and ARGV[5] == '1' then return -1 end
end
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('LPUSH', KEYS[2], ARGV[3])
return removed
`;

type RetryNowClient = Redis & {
  sidekiqRetryNow(set: string, queue: string, queues: string, score: string, jid: string, job: string, name: string, mustBeThere: string): Promise<number>;
};

const str = (v: unknown) => (typeof v === 'string' && v.length ? v : null);

async function redriveOne(client: RetryNowClient, config: SidekiqConfig, item: OutgoingRedrive): Promise<DeliveryResult> {
  const keys = keysOf(config);
  const o = item.origin;
  const job = redrivenJob(item.payload, item.redriveCount + 1, new Date());
  if (job === null)
    return {
      ok: false,
      failure: 'message',
      error: `Sidekiq job ${item.messageId} is not a JSON object, so Sidekiq could not run it: edit it into one to redrive it`,
    };
  const queue = str(o['sidekiq.queue']) ?? 'default';
  const inRetry = o['sidekiq.set'] === 'retry';
  // Left in the set at import (the header, stored then; absent on older dead letters: pushed as
  // before), and the source still leaves its dead jobs there (turned on since, the import may
  // have removed it).
  const mustBeThere = o[REMOVED_HEADER] === false && (inRetry || !config.removeAfterImport);
  const set = inRetry ? keys.retry : keys.dead;
  const taken = await client.sidekiqRetryNow(
    set,
    keys.queue(queue),
    keys.queues,
    str(o['sidekiq.score']) ?? '',
    str(o['sidekiq.jid']) ?? item.messageId,
    job,
    queue,
    mustBeThere ? '1' : '',
  );
  if (taken === -1) {
    const where = inRetry ? 'retry set' : 'dead set';
    // Skipped, not failed: Sidekiq is healthy, so the redrive's breaker must not count it.
    return {
      ok: false,
      failure: 'gone',
      error: `Sidekiq job ${item.messageId} is no longer in Sidekiq's ${where} (retried, deleted or trimmed by Sidekiq since the import): nothing was sent, so it does not run twice`,
    };
  }
  // Sidekiq tells nothing of a job's success; its next death is imported as the next generation.
  return { ok: true, acknowledged: false };
}

export function sidekiqDestination(source: ConnectorSource<SidekiqConfig, SidekiqSecret>): RedriveDestination {
  const { config, secret } = source;
  const { connect, drop } = redriveConnection(
    source,
    (client) => {
      client.defineCommand('sidekiqRetryNow', { numberOfKeys: 3, lua: RETRY_NOW });
      return client as RetryNowClient;
    },
    (client) => client.disconnect(),
  );
  return {
    description: `Sidekiq queues on ${keysOf(config).queues}`,
    // Redis away: wait and retry. A job Sidekiq could not read says so per item ('message').
    failures: 'infrastructure',
    async deliver(batch) {
      try {
        const client = await connect();
        const results = await Promise.all(
          batch.map((item) =>
            redriveOne(client, config, item).catch((err: unknown): DeliveryResult => {
              const e = redisError(err, secret);
              return { ok: false, failure: e.kind === 'unreachable' ? 'infrastructure' : e.kind === 'auth' ? 'refused' : 'message', error: e.message };
            }),
          ),
        );
        // A lost connection is reopened on the next delivery.
        if (results.some((r) => !r.ok && r.failure !== 'message')) await drop();
        return results;
      } catch (err) {
        await drop();
        const e = redisError(err, secret);
        return batch.map(() => ({ ok: false, failure: e.kind === 'auth' ? 'refused' : 'infrastructure', error: e.message }));
      }
    },
    close: drop,
  };
}
