// The job catalog (docs/style.md pattern 7; formbricks packages/jobs "definitions"): one entry per
// job, naming its queue, the zod schema of its payload and its attempts and backoff. Producers
// enqueue through it (lib/queue/enqueue.ts) and workers parse through it (lib/queue/process-job.ts),
// so a job's options and its payload's shape are written once.
import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { MINUTE, SECOND } from '@/lib/clock';
import { envelopeSchema } from './envelope';
import { JOBS, type QUEUES } from './queues';

/** A queue of the catalog: a key of QUEUES (`source` is one queue per built-in source). */
export type QueueKey = keyof typeof QUEUES;

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  queue: QueueKey;
  schema: S;
  /** Attempts BullMQ makes before the job fails for good (1: no retry). */
  attempts: number;
  /** A backoff type the queue's worker defines (its backoffStrategy), or none. */
  backoff?: JobsOptions['backoff'];
  /** Further options every job of this kind carries. */
  options?: JobsOptions;
  /** For a job run by a BullMQ job scheduler: how often it runs. */
  every?: number;
}

const define = <S extends z.ZodType>(d: JobDefinition<S>): JobDefinition<S> => d;

/** Scheduled jobs carry no payload (a scheduler's template has none): anything, even absent, passes. */
const noPayload = z.unknown();

// The runtime, not BullMQ, decides when a message has had enough receives (the source's policy
// can change while a message is in flight), so BullMQ's own attempt limit is never the one hit.
const UNBOUNDED_ATTEMPTS = 1_000_000_000;

export const CATALOG = {
  message: define({
    name: JOBS.message,
    queue: 'source',
    schema: envelopeSchema,
    attempts: UNBOUNDED_ATTEMPTS,
    // The consumer's backoffStrategy (lib/runtime/consume.ts): the core's backoff with full jitter.
    backoff: { type: 'triage' },
    // Redis holds a message only while it is in flight: gone once acknowledged; once parked, kept in
    // the failed set only until the sweeper has committed its dead letter (then removed). The runtime
    // keeps its own evidence, so BullMQ's per-attempt stack traces would only repeat it in Redis.
    options: { removeOnComplete: true, removeOnFail: false, stackTraceLimit: 0 },
  }),
  redriveTask: define({
    name: JOBS.redriveTask,
    queue: 'redrive',
    schema: z.object({ taskId: z.string().min(1) }),
    // Only a nudge: the redrive workers find runnable tasks in Postgres anyway (lib/redrive/nudge.ts).
    attempts: 1,
  }),
  webhookDeliver: define({
    name: JOBS.webhookDeliver,
    queue: 'webhooks',
    // createdAt (ms): the row the job was queued for; absent in jobs queued by an older version.
    schema: z.object({ deliveryId: z.string().regex(/^\d+$/, 'a delivery id'), createdAt: z.number().int().optional() }),
    attempts: 8,
    // The webhook worker's backoffStrategy (lib/notifications/deliveries.ts).
    backoff: { type: 'webhook' },
  }),
  alarmsEvaluate: define({ name: JOBS.alarmsEvaluate, queue: 'maintenance', schema: noPayload, attempts: 1, every: 15 * SECOND }),
  rollupsCompute: define({ name: JOBS.rollupsCompute, queue: 'maintenance', schema: noPayload, attempts: 1, every: 15 * SECOND }),
  retentionSweep: define({ name: JOBS.retentionSweep, queue: 'maintenance', schema: noPayload, attempts: 1, every: MINUTE }),
  // dead_letters' months created ahead and whole expired months dropped (lib/retention/partitions.ts).
  retentionPartitions: define({ name: JOBS.retentionPartitions, queue: 'maintenance', schema: noPayload, attempts: 1, every: 10 * MINUTE }),
  // Statistics of dead_letters' partitions that autovacuum has not caught up with (a storm's month).
  partitionsAnalyze: define({ name: JOBS.partitionsAnalyze, queue: 'maintenance', schema: noPayload, attempts: 1, every: 30 * SECOND }),
  webhooksRedeliver: define({ name: JOBS.webhooksRedeliver, queue: 'maintenance', schema: noPayload, attempts: 1, every: MINUTE }),
  auditCheckpoint: define({ name: JOBS.auditCheckpoint, queue: 'maintenance', schema: noPayload, attempts: 1, every: 10 * MINUTE }),
  maskingRecompute: define({ name: JOBS.maskingRecompute, queue: 'maintenance', schema: noPayload, attempts: 1, every: 5 * SECOND }),
  clustersRegroup: define({ name: JOBS.clustersRegroup, queue: 'maintenance', schema: noPayload, attempts: 1, every: 5 * SECOND }),
  redriveRulesEvaluate: define({ name: JOBS.redriveRulesEvaluate, queue: 'maintenance', schema: noPayload, attempts: 1, every: 5 * SECOND }),
} as const satisfies Record<keyof typeof JOBS, JobDefinition>;

export type CatalogKey = keyof typeof CATALOG;
export type CatalogEntry = (typeof CATALOG)[CatalogKey];
/** What a producer passes for a job (before the schema's defaults and transforms). */
export type JobInput<K extends CatalogKey> = z.input<(typeof CATALOG)[K]['schema']>;
/** What a handler receives for a job, parsed. */
export type JobData<K extends CatalogKey> = z.output<(typeof CATALOG)[K]['schema']>;

/** The catalog's entries of one queue. */
export function jobsOf(queue: QueueKey): CatalogEntry[] {
  return Object.values(CATALOG).filter((d) => d.queue === queue);
}

/** The BullMQ options of a job of this kind: its attempts and backoff, its entry's options, then `extra` (a job id). */
export function jobOptions(entry: JobDefinition, extra: JobsOptions = {}): JobsOptions {
  return { attempts: entry.attempts, ...(entry.backoff ? { backoff: entry.backoff } : {}), ...entry.options, ...extra };
}
