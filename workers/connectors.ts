// The connectors process: imports the dead letters of every connector source (RabbitMQ, BullMQ…)
// from its broker into Triage, write then acknowledge. The work is in lib/connectors; this file
// starts it and shuts it down cleanly (lib/worker-runner/run-worker-process.ts).
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';

runWorkerProcess({
  name: 'connectors worker',
  timeouts: 'worker',
  heartbeat: 'connectors',
  start: () => startConnectorSupervisor(),
  ready: (supervisor) => ({ running: supervisor.running().length }),
  // Each loop finishes its batch in flight (committed, then acknowledged) or leaves it on the broker.
  stop: (supervisor) => supervisor.stop(),
});
