// The one queue module (docs/style.md pattern 7): queue names, prefix, job names "domain.verb",
// default job options. Source queues carry in-flight messages only; Postgres is the record.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { env } from '@/lib/env';
import { redisConnection } from '@/lib/redis';

export const QUEUES = {
  /** A source queue of the built-in broker runtime: one per source. */
  source: (sourceName: string) => `source.${sourceName}`,
  redrive: 'redrive',
  maintenance: 'maintenance',
  webhooks: 'webhooks',
} as const;

export const JOBS = {
  message: 'message.deliver',
  redriveTask: 'redrive.run',
  alarmsEvaluate: 'alarms.evaluate',
  rollupsCompute: 'rollups.compute',
  retentionSweep: 'retention.sweep',
  auditCheckpoint: 'audit.checkpoint',
  webhookDeliver: 'webhook.deliver',
  webhooksRedeliver: 'webhooks.redeliver',
  maskingRecompute: 'masking.recompute',
  clustersRegroup: 'clusters.regroup',
  redriveRulesEvaluate: 'redrive-rules.evaluate',
} as const;

export function queuePrefix(): string {
  return env().QUEUE_PREFIX;
}

/** Completed jobs are dropped at once: the outcome lives in Postgres, not in Redis. */
export const DEFAULT_JOB_OPTIONS: JobsOptions = { removeOnComplete: true, removeOnFail: 1000 };

const producers = new Map<string, Queue>();
let producerConnection: ConnectionOptions | undefined;

/** A cached producer-side Queue (shared connection); workers make their own connections. */
export function producerQueue(name: string): Queue {
  let q = producers.get(name);
  if (!q) {
    producerConnection ??= redisConnection('producer');
    q = new Queue(name, { connection: producerConnection, prefix: queuePrefix(), defaultJobOptions: DEFAULT_JOB_OPTIONS });
    q.on('error', () => {}); // connection errors surface on the calls that fail; ioredis reconnects
    producers.set(name, q);
  }
  return q;
}

export async function closeQueues(): Promise<void> {
  await Promise.all([...producers.values()].map((q) => q.close()));
  producers.clear();
  if (producerConnection && 'quit' in producerConnection) await (producerConnection as { quit(): Promise<unknown> }).quit().catch(() => {});
  producerConnection = undefined;
}
