// The one place BullMQ Workers are built: the worker Redis connection, the queue prefix, and an
// error listener that says one line every few seconds (connection errors repeat on every retry
// while Redis is away). The processor is processJob's (lib/queue/process-job.ts), or the broker
// runtime's own (lib/runtime/consume.ts), whose bad payloads become dead letters instead.
import { Worker, type Processor, type WorkerOptions } from 'bullmq';
import { log } from '@/lib/log';
import { redisConnection, type RedisClient } from '@/lib/redis';
import { queuePrefix } from './queues';

export interface QueueWorkerOptions extends Omit<WorkerOptions, 'connection' | 'prefix'> {
  /** A connection the caller closes itself; by default a new worker connection. */
  connection?: RedisClient;
  /** Context of the error lines. */
  logContext?: Record<string, unknown>;
  /** The message of the error line. */
  errorMessage: string;
  errorLevel?: 'warn' | 'error';
}

const ERROR_LOG_EVERY_MS = 5_000;

export function createQueueWorker<T = unknown>(queue: string, processor: Processor<T>, options: QueueWorkerOptions): Worker<T> {
  const { connection, logContext, errorMessage, errorLevel = 'warn', ...workerOptions } = options;
  const worker = new Worker<T>(queue, processor, { ...workerOptions, connection: connection ?? redisConnection('worker'), prefix: queuePrefix() });
  let lastErrorLog = 0;
  let quieted = 0;
  worker.on('error', (err) => {
    if (Date.now() - lastErrorLog < ERROR_LOG_EVERY_MS) {
      quieted++;
      return;
    }
    lastErrorLog = Date.now();
    log[errorLevel]({ ...logContext, err: err.message, quieted }, errorMessage);
    quieted = 0;
  });
  return worker;
}
