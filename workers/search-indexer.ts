// The search indexer: makes new dead letters findable by payload and error text within about a
// second, in bulk and off the ingest path (lib/search). Several may run; they share the backlog.
import { closeDb, useWorkerTimeouts } from '@/lib/db';
import { log } from '@/lib/log';
import { startHeartbeat } from '@/lib/workers/heartbeat';
import { startSearchIndexer } from '@/lib/search';

// Before any query: every session of this process carries the worker timeouts (its bulk statements get the longer bulk timeout: lib/db.ts).
useWorkerTimeouts('bulk');

async function main(): Promise<void> {
  const indexer = await startSearchIndexer();
  const heartbeat = startHeartbeat('search-indexer');
  log.info('ready');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, indexed: indexer.indexed() }, 'search indexer stopping');
    // The batch in hand commits first; anything left stays in the backlog for the next process.
    await indexer.stop();
    await heartbeat.stop();
    await closeDb();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'search indexer failed to start');
  process.exit(1);
});
