// The long-running search indexer (workers/search-indexer.ts): woken by the backlog trigger's
// NOTIFY, with a slow poll as a fallback for a lost notification or a dropped connection.
import { writeBudget, type WriteBudget } from '@/lib/admission';
import { pg } from '@/lib/db';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { drainBacklog } from './index-backlog';

const POLL_MS = 5_000;
const RETRY_MS = 2_000;

export interface SearchIndexer {
  stop(): Promise<void>;
  /** Dead letters indexed since start. */
  indexed(): number;
}

export async function startSearchIndexer(opts: { concurrency?: number; budget?: WriteBudget } = {}): Promise<SearchIndexer> {
  const sql = pg();
  const budget = opts.budget ?? writeBudget();
  // Stopped while waiting for write budget: the backlog keeps the rest for the next process.
  const stopped = new AbortController();
  const admit = async (batch: () => Promise<number>) => (await budget.run('indexer', batch, { signal: stopped.signal }))?.value ?? 0;
  // Trigram indexing is CPU in Postgres: batches side by side use more than one core of it.
  const concurrency = opts.concurrency ?? env().SEARCH_INDEXER_CONCURRENCY;
  let stopping = false;
  let total = 0;
  let wake: (() => void) | null = null;
  let pending = true;
  const nudge = () => {
    pending = true;
    wake?.();
  };
  const listener = await sql.listen('search_backlog', nudge, nudge);
  const timer = setInterval(nudge, POLL_MS);

  const loop = (async () => {
    while (!stopping) {
      if (!pending) await new Promise<void>((r) => (wake = r));
      wake = null;
      pending = false;
      try {
        const n = await drainBacklog({ sql, concurrency, until: () => stopping, onBatch: (k) => (total += k), admit });
        log.debug({ n, total }, 'search indexed');
      } catch (err) {
        log.error({ err }, 'search indexing failed; retrying');
        await new Promise((r) => setTimeout(r, RETRY_MS));
        pending = true;
      }
    }
  })();

  return {
    indexed: () => total,
    async stop() {
      stopping = true;
      stopped.abort();
      clearInterval(timer);
      wake?.();
      await loop;
      await listener.unlisten();
    },
  };
}
