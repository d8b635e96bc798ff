// Producers enqueue through the catalog (lib/queue/catalog.ts): the queue, attempts and backoff of
// a job come from its entry; the caller gives the payload and, where it dedupes, the job id.
// Payloads are typed here and parsed by the worker (processJob), which must not trust Redis anyway.
import type { Queue } from 'bullmq';
import { CATALOG, jobOptions, type CatalogKey, type JobInput } from './catalog';
import { QUEUES, producerQueue } from './queues';

export interface EnqueueOptions {
  jobId?: string;
  /** For a job of the per-source queues (`source`): the source's name. */
  source?: string;
}

function queueFor(key: CatalogKey, source?: string): Queue {
  const entry = CATALOG[key];
  if (entry.queue === 'source') {
    if (!source) throw new Error(`job ${entry.name} goes to a source queue: name the source`);
    return producerQueue(QUEUES.source(source));
  }
  return producerQueue(QUEUES[entry.queue]);
}

export async function enqueue<K extends CatalogKey>(key: K, data: JobInput<K>, opts: EnqueueOptions = {}): Promise<void> {
  const { jobId, source } = opts;
  await queueFor(key, source).add(CATALOG[key].name, data, jobOptions(CATALOG[key], jobId ? { jobId } : {}));
}

/** Several jobs of one kind in one round trip. */
export async function enqueueBulk<K extends CatalogKey>(key: K, jobs: { data: JobInput<K>; jobId?: string }[], opts: { source?: string } = {}): Promise<void> {
  if (jobs.length === 0) return;
  const entry = CATALOG[key];
  await queueFor(key, opts.source).addBulk(jobs.map((j) => ({ name: entry.name, data: j.data, opts: jobOptions(entry, j.jobId ? { jobId: j.jobId } : {}) })));
}
