// The one job processor (formbricks packages/jobs "processors/registry"): a queue's worker is given
// handlers by catalog key; processJob parses each job's payload with its catalog entry's schema
// and dispatches by name.
// - A name no handler serves is logged and completed: a stale job scheduler or a job queued by an
//   older release outlives the code, and failing it would only fill the failed set.
// - A payload the schema refuses fails the job for good (UnrecoverableError): retrying cannot fix it.
import { UnrecoverableError, type Job, type Processor } from 'bullmq';
import { log } from '@/lib/log';
import { issueText } from '@/lib/zod-issues';
import { CATALOG, type CatalogKey, type JobData } from './catalog';

export type JobHandler<K extends CatalogKey> = (data: JobData<K>, job: Job) => Promise<unknown>;
export type JobHandlers = { [K in CatalogKey]?: JobHandler<K> };

export function processJob(queue: string, handlers: JobHandlers): Processor {
  const byName = new Map<string, { key: CatalogKey; handler: (data: unknown, job: Job) => Promise<unknown> }>();
  for (const [key, handler] of Object.entries(handlers) as [CatalogKey, (data: unknown, job: Job) => Promise<unknown>][]) {
    byName.set(CATALOG[key].name, { key, handler });
  }
  return async (job: Job) => {
    const served = byName.get(job.name);
    if (!served) {
      log.warn({ queue, job: job.name, jobId: job.id }, 'unknown job: completed without running (a stale schedule or an older release?)');
      return undefined;
    }
    const parsed = CATALOG[served.key].schema.safeParse(job.data);
    if (!parsed.success) {
      throw new UnrecoverableError(`invalid payload for job ${job.name}: ${issueText(parsed.error.issues, { max: 3 })}`);
    }
    return served.handler(parsed.data, job);
  };
}
