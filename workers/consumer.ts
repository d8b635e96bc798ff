// The broker runtime's process: one consumer per built-in source with a handler (the demo's),
// new sources picked up while running. After a Redis restart the connections come back by
// themselves (ioredis retries forever, BullMQ workers resume). SIGTERM: finish what is in hand.
import { closeDb, useWorkerTimeouts } from '@/lib/db';
import { demoHandlers } from '@/lib/demo';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { startHeartbeat } from '@/lib/workers/heartbeat';
import { closeQueues } from '@/lib/queue';
import { runConsumers } from '@/lib/runtime';

// Before any query: every session of this process carries the worker timeouts (a query gets an error, not a hang: lib/db.ts).
useWorkerTimeouts('worker');

// A handler that never returns must not hold the shutdown forever; its message comes back to
// another consumer after the visibility timeout.
const SHUTDOWN_GRACE_MS = 25_000;

const host = await runConsumers(demoHandlers, { discoveryMs: env().CONSUMER_DISCOVERY_MS, concurrency: env().CONSUMER_CONCURRENCY });
const heartbeat = startHeartbeat('consumer');
log.info({ sources: host.sources() }, 'ready');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'consumer stopping');
  setTimeout(() => {
    log.warn('handlers still busy after the grace period: exiting, their messages will be redelivered');
    process.exit(0);
  }, SHUTDOWN_GRACE_MS).unref();
  await host.close();
  await heartbeat.stop();
  await Promise.all([closeQueues(), closeDb()]);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
