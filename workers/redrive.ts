// The redrive process: runs redrive tasks at their rate, resumable from Postgres after a crash or a
// Redis restart. The work is in lib/redrive; this file starts it and shuts it down cleanly
// (lib/worker-runner/run-worker-process.ts).
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { QUEUES } from '@/lib/queue';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';

runWorkerProcess({
  name: 'redrive worker',
  timeouts: 'worker',
  heartbeat: 'redrive',
  start: () => startRedriveSupervisor(),
  ready: (supervisor) => ({ queue: QUEUES.redrive, running: supervisor.running() }),
  // Batches in flight are sent and marked first; the tasks stay running in Postgres for the next process.
  stop: (supervisor) => supervisor.stop(),
});
