// The redrive process: runs redrive tasks at their rate, resumable from Postgres after a crash or a
// Redis restart. The work is in lib/redrive; this file starts it and shuts it down cleanly.
import { closeDb, useWorkerTimeouts } from '@/lib/db';
import { log } from '@/lib/log';
import { startHeartbeat } from '@/lib/workers/heartbeat';
import { closeQueues, QUEUES } from '@/lib/queue';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';

// Before any query: every session of this process carries the worker timeouts (a query gets an error, not a hang: lib/db.ts).
useWorkerTimeouts('worker');

async function main(): Promise<void> {
  const supervisor = await startRedriveSupervisor();
  const heartbeat = startHeartbeat('redrive');
  log.info({ queue: QUEUES.redrive, running: supervisor.running() }, 'ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'redrive worker stopping');
    // Batches in flight are sent and marked first; the tasks stay running in Postgres for the next process.
    await supervisor.stop();
    await closeQueues();
    await heartbeat.stop();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'redrive worker failed to start');
  process.exit(1);
});
