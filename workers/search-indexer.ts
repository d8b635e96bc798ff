// The search indexer: makes new dead letters findable by payload and error text within about a
// second, in bulk and off the ingest path (lib/search). Several may run; they share the backlog.
import { runWorkerProcess } from '@/lib/worker-runner/run-worker-process';
import { startSearchIndexer } from '@/lib/search';

runWorkerProcess({
  name: 'search indexer',
  // Its bulk statements get the longer bulk timeout (lib/db/pools.ts).
  timeouts: 'bulk',
  heartbeat: 'search-indexer',
  start: () => startSearchIndexer(),
  stopping: (indexer) => ({ indexed: indexer.indexed() }),
  // The batch in hand commits first; anything left stays in the backlog for the next process.
  stop: (indexer) => indexer.stop(),
});
