// The redrive side of the BullMQ connector: a failed job is retried where it is (job.retry, with
// fresh attempts, so the application's retry policy applies as to a new job); a job that is gone
// (removed after import, or by the application) comes back as a copy: same name, same data, the
// application's options without the ones that tie it to a schedule, a parent or a delay. The
// application's data is never changed: Triage's redrive count stays in Triage's rows (the next
// failure's generation and count are derived there), so the copy carries nothing of Triage's.
import { Job, type JobsOptions, type Queue } from 'bullmq';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import type { ConnectorSource } from '../types';
import type { BullmqConfig, BullmqSecret } from './config';
import { appQueue, isConnectionError, redisError, redriveConnection } from './connection';
import { copyJobIdOf } from './map-job';

/** States in which the job is already back in the application's hands: a resend after a crash. */
const QUEUED_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

/** The application's options for a copy: without its id, schedule, parent and delay. */
function copyOptions(opts: unknown, jobId: string): JobsOptions {
  const o = opts && typeof opts === 'object' ? (opts as JobsOptions & Record<string, unknown>) : {};
  const { jobId: _id, repeat: _repeat, repeatJobKey: _rjk, parent: _parent, delay: _delay, timestamp: _ts, prevMillis: _prev, ...rest } = o;
  return { ...rest, jobId };
}

async function redriveOne(queue: Queue, item: OutgoingRedrive): Promise<DeliveryResult> {
  // The job's facts from the original's stored headers: an edited copy cannot retry another job.
  const h = item.origin;
  const jobIds = [...new Set([typeof h['bullmq.jobId'] === 'string' ? h['bullmq.jobId'] : item.messageId, item.messageId, copyJobIdOf(item.messageId)])];
  for (const id of jobIds) {
    const job = await Job.fromId(queue, id);
    if (!job) continue;
    try {
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      return { ok: true, acknowledged: false };
    } catch (err) {
      if (isConnectionError(err)) throw err;
      const state = await queue.getJobState(id);
      if (QUEUED_STATES.has(state)) return { ok: true, acknowledged: false };
      if (state === 'unknown') continue; // removed meanwhile: a copy goes instead
      return { ok: false, failure: 'message', error: `BullMQ job ${id} is ${state}, not failed, so it cannot be retried` };
    }
  }
  // Gone: a copy, under the job's own id (or "triage-copy-<id>" for an integer id): adding it twice is a no-op.
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(item.payload.buffer, item.payload.byteOffset, item.payload.byteLength).toString('utf8'));
  } catch {
    return { ok: false, failure: 'message', error: `BullMQ job ${item.messageId} is gone and its payload is not JSON, so no copy can be added` };
  }
  const name = typeof h['bullmq.name'] === 'string' ? h['bullmq.name'] : 'redrive';
  try {
    await queue.add(name, data, copyOptions(h['bullmq.opts'], copyJobIdOf(item.messageId)));
  } catch (err) {
    if (isConnectionError(err)) throw err;
    return { ok: false, failure: 'message', error: `BullMQ refused the copy of job ${item.messageId}: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { ok: true, acknowledged: false };
}

export function bullmqDestination(source: ConnectorSource<BullmqConfig, BullmqSecret>): RedriveDestination {
  const { config, secret } = source;
  const { connect, drop } = redriveConnection(
    source,
    (client) => ({ client, queue: appQueue(config, client) }),
    async ({ client, queue }) => {
      await queue.close().catch(() => undefined);
      client.disconnect();
    },
  );
  return {
    description: `BullMQ queue ${config.prefix}:${config.queue}`,
    // Redis away: wait and retry. A job that cannot be retried says so per item ('message').
    failures: 'infrastructure',
    async deliver(batch) {
      try {
        const { queue } = await connect();
        return await Promise.all(
          batch.map((item) =>
            redriveOne(queue, item).catch((err: unknown): DeliveryResult => {
              const e = redisError(err, secret);
              return { ok: false, failure: e.kind === 'unreachable' ? 'infrastructure' : 'message', error: e.message };
            }),
          ),
        ).then(async (results) => {
          // A lost connection is reopened on the next delivery.
          if (results.some((r) => !r.ok && r.failure === 'infrastructure')) await drop();
          return results;
        });
      } catch (err) {
        await drop();
        const error = redisError(err, secret).message;
        return batch.map(() => ({ ok: false, failure: 'infrastructure', error }));
      }
    },
    close: drop,
  };
}
