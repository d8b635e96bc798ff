// The hooks of a suite that delivers webhooks with a real BullMQ worker (alarms, connector health).
import type { Worker } from 'bullmq';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { closeDb } from '@/lib/db';
import { webhookWorker } from '@/lib/notifications/deliveries';
import { QUEUES, closeQueues, producerQueue } from '@/lib/queue';
import { resetDatabase } from '../support/db';

/** A reset database before each test, the test's webhook worker closed after it, pools closed at the end. */
export function webhookTestLifecycle(): { startWorker(opts: Parameters<typeof webhookWorker>[0]): Worker } {
  let worker: Worker | undefined;
  beforeEach(async () => {
    await resetDatabase();
    // The worker's Redis prefix outlives the files it runs: a delivery job an earlier file left (an
    // ownership note's, say) would be counted among this test's.
    await producerQueue(QUEUES.webhooks).obliterate({ force: true });
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
  });
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });
  return { startWorker: (opts) => (worker = webhookWorker(opts)) };
}

/** Resolves once one of `worker`'s jobs has failed its last attempt. */
export function lastAttemptFailed(worker: Worker): Promise<void> {
  return new Promise<void>((resolve) =>
    worker.on('failed', (job) => {
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) resolve();
    }),
  );
}
