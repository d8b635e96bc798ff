// The connectors process: imports the dead letters of every connector source (RabbitMQ, BullMQ…)
// from its broker into Triage, write then acknowledge. The work is in lib/connectors; this file
// starts it and shuts it down cleanly.
import { closeDb, useWorkerTimeouts } from '@/lib/db';
import { log } from '@/lib/log';
import { startHeartbeat } from '@/lib/workers/heartbeat';
import { startConnectorSupervisor } from '@/lib/connectors/supervisor';

// Before any query: every session of this process carries the worker timeouts (a query gets an error, not a hang: lib/db.ts).
useWorkerTimeouts('worker');

async function main(): Promise<void> {
  const supervisor = await startConnectorSupervisor();
  const heartbeat = startHeartbeat('connectors');
  log.info({ running: supervisor.running().length }, 'ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'connectors worker stopping');
    // Each loop finishes its batch in flight (committed, then acknowledged) or leaves it on the broker.
    await supervisor.stop();
    await heartbeat.stop();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'connectors worker failed to start');
  process.exit(1);
});
