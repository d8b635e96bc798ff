// The broker runtime's process: one consumer per built-in source with a handler (the demo's),
// new sources picked up while running. After a Redis restart the connections come back by
// themselves (ioredis retries forever, BullMQ workers resume). SIGTERM: finish what is in hand.
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { demoHandlers } from '@/lib/demo';
import { env } from '@/lib/env';
import { runConsumers } from '@/lib/runtime';

runWorkerProcess({
  name: 'consumer',
  timeouts: 'worker',
  heartbeat: 'consumer',
  start: () => runConsumers(demoHandlers, { discoveryMs: env().CONSUMER_DISCOVERY_MS, concurrency: env().CONSUMER_CONCURRENCY }),
  ready: (host) => ({ sources: host.sources() }),
  stop: (host) => host.close(),
  // A handler that never returns must not hold the shutdown forever; its message comes back to
  // another consumer after the visibility timeout.
  graceMs: 25_000,
  graceMessage: 'handlers still busy after the grace period: exiting, their messages will be redelivered',
});
