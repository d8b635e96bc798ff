// The one queue module (docs/style.md pattern 7): queue names, prefix, job names "domain.verb",
// default job options. Source queues carry in-flight messages only; Postgres is the record.
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { env } from '@/lib/env';
import { redisConnection, type RedisClient } from '@/lib/redis';
import { closeWriteBudget } from '@/lib/admission';

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
  retentionPartitions: 'retention.partitions',
  partitionsAnalyze: 'partitions.analyze',
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
let producerConnection: RedisClient | undefined;

/** The producer side's shared Redis connection (closeQueues ends it), for plain reads of queue keys. */
export function producerRedis(): RedisClient {
  producerConnection ??= redisConnection('producer');
  return producerConnection;
}

/** A cached producer-side Queue (shared connection); workers make their own connections. */
export function producerQueue(name: string): Queue {
  let q = producers.get(name);
  if (!q) {
    q = new Queue(name, { connection: producerRedis() as ConnectionOptions, prefix: queuePrefix(), defaultJobOptions: DEFAULT_JOB_OPTIONS });
    q.on('error', () => {}); // connection errors surface on the calls that fail; ioredis reconnects
    producers.set(name, q);
  }
  return q;
}

export async function closeQueues(): Promise<void> {
  // The write budget's leases live in the same Redis: its connection goes with the queues'.
  await closeWriteBudget();
  await Promise.all([...producers.values()].map((q) => q.close()));
  producers.clear();
  await producerConnection?.quit().catch(() => {});
  producerConnection = undefined;
}
