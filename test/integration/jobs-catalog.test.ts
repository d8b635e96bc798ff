// The job catalog under a real BullMQ worker on the real Redis: producers enqueue through
// the catalog, so a job carries its entry's attempts and backoff; processJob runs the handler on the
// parsed payload, fails a bad payload once and for good (no retry storm, however many attempts it
// was given), and completes a job whose name no handler serves (a stale schedule outlives the code).
import type { Job } from 'bullmq';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeQueues, producerQueue, QUEUES } from '@/lib/queue';
import { CATALOG } from '@/lib/queue/catalog';
import { enqueue } from '@/lib/queue/enqueue';
import { processJob } from '@/lib/queue/process-job';
import { createQueueWorker } from '@/lib/queue/worker';
import { waitFor } from './runtime-support';

const queue = () => producerQueue(QUEUES.redrive);
const closers: (() => Promise<void>)[] = [];

describe('job catalog and processJob', () => {
  // The run's Redis prefix is shared by every test file: start from an empty redrive queue.
  beforeEach(async () => {
    await queue().obliterate({ force: true });
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
    await queue().obliterate({ force: true });
  });
  afterAll(closeQueues);

  it('runs the handler on the payload, fails a bad payload without a retry, and completes an unknown name', { timeout: 60_000 }, async () => {
    const served: string[] = [];
    const completed: string[] = [];
    const worker = createQueueWorker(QUEUES.redrive, processJob(QUEUES.redrive, { redriveTask: async ({ taskId }) => void served.push(taskId) }), {
      errorMessage: 'test worker error',
    });
    worker.on('completed', (job: Job) => void completed.push(job.name));
    closers.push(() => worker.close());

    await enqueue('redriveTask', { taskId: 'task-a' }, { jobId: 'nudge-a' });
    // Neither can come from a typed producer: an older release's payload, and a name it used.
    await queue().add(CATALOG.redriveTask.name, { task: 42 }, { jobId: 'bad-payload', attempts: 5, backoff: { type: 'fixed', delay: 10 } });
    await queue().add('redrive.retired-job', { taskId: 'task-b' }, { jobId: 'stale-name', attempts: 5 });

    await waitFor('the three jobs settled', async () => completed.length === 2 && (await queue().getJobState('bad-payload')) === 'failed', 30_000, 100);
    expect(served).toEqual(['task-a']);
    expect(completed.sort()).toEqual([CATALOG.redriveTask.name, 'redrive.retired-job'].sort());
    const bad = (await queue().getJob('bad-payload'))!;
    expect(bad.attemptsMade).toBe(1);
    expect(bad.failedReason).toMatch(/^invalid payload for job redrive\.run: taskId: /);
  });

  it('gives an enqueued job its catalog entry attempts and backoff', async () => {
    await enqueue('webhookDeliver', { deliveryId: '12' }, { jobId: 'delivery-12-0' });
    const job = (await producerQueue(QUEUES.webhooks).getJob('delivery-12-0'))!;
    expect(job.name).toBe(CATALOG.webhookDeliver.name);
    expect(job.opts).toMatchObject({ attempts: 8, backoff: { type: 'webhook' } });
    await producerQueue(QUEUES.webhooks).obliterate({ force: true });
  });
});
