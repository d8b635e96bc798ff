// The import side of the Sidekiq connector: the application's dead set ("dead", scored by the time
// Sidekiq killed the job), read in score order from a cursor, and, when the source says so, the
// jobs in the retry set past a retry count. Write, then acknowledge: a batch's rows commit first;
// only then does the cursor move and, when the source says so, the jobs leave the dead set (ZREM of
// the exact member, so a job Sidekiq rewrote meanwhile stays). A crash in between rereads the batch,
// and the rows Triage holds say which failures are already recorded.
//
// Identity: message id = the jid; one failure = one generation, told apart by its time (retried_at,
// or failed_at): the same (jid, failure time) reread adds nothing, a job that dies again after a
// redrive (which clears them) is the next generation, as the BullMQ connector counts them.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { NewDeadLetter } from '@/lib/deadletters/record-dead-letters';
import { assignGenerations, heldOf } from '../bullmq/import';
import { redactUrl } from '../secrets';
import type { ConnectorSource, ImportSink } from '../types';
import { ConnectorError } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';
import { assertSidekiqThere, openRedis, redisError } from './connection';
import { deadLetterOfEntry, type SetEntry } from './job';

/** A batch stops growing at this many payload bytes (a job may be megabytes). */
const MAX_BATCH_BYTES = 32 * 1024 * 1024;
/** Retry-set members read per round trip. */
const RETRY_PAGE = 500;

const idOf = (e: SetEntry) => createHash('sha1').update(e.member).digest('base64');

function entriesOf(flat: Buffer[]): SetEntry[] {
  const out: SetEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ member: flat[i]!, score: flat[i + 1]!.toString('latin1') });
  return out;
}

/** Record the failures not yet held; resolves once they committed. */
async function recordFresh(source: ConnectorSource<SidekiqConfig, SidekiqSecret>, sink: ImportSink, failures: NewDeadLetter[]): Promise<void> {
  if (failures.length === 0) return;
  const held = await heldOf(source.id, [...new Set(failures.map((f) => f.messageId))]);
  const { fresh } = assignGenerations(failures, held);
  if (fresh.length > 0) await sink.record(fresh);
}

/** Resolves after `ms` or on abort. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function runSidekiqImport(source: ConnectorSource<SidekiqConfig, SidekiqSecret>, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { config, secret } = source;
  const keys = keysOf(config);
  const client: Redis = await openRedis(secret, { name: `${source.name}:import` });
  let lost: unknown = null;
  // Whether a failure is Postgres's (passed on as it is) rather than Redis's (said as a ConnectorError).
  let inPostgres = false;
  client.on('end', () => (lost ??= new ConnectorError('unreachable', `Redis at ${redactUrl(secret.url)} closed the connection`)));
  const abort = () => client.disconnect();
  signal.addEventListener('abort', abort, { once: true });
  try {
    await assertSidekiqThere(client, config, secret);
    // The newest death seen (a score, in seconds); null: walk the dead set from its start, which a
    // restarted import does (the rows held say what is recorded: the set is capped, 10,000 by default).
    let cursor: number | null = null;
    // Members imported at or after cursor - lookback, by their hash: rereading them costs no write.
    const known = new Map<string, number>();
    // Where a walk through a backlog goes on: after the last entry taken (its score, and the members taken at it).
    let resume: { min: string; atMin: Set<string> } | null = null;

    async function nextEntries(): Promise<{ found: SetEntry[]; more: boolean }> {
      let { min, atMin } = resume ?? { min: cursor === null ? '-inf' : String(cursor - config.lookbackMs / 1000), atMin: new Set<string>() };
      const found: SetEntry[] = [];
      let bytes = 0;
      for (;;) {
        const want = config.batchSize + atMin.size;
        const page = entriesOf(await client.zrangebyscoreBuffer(keys.dead, min, '+inf', 'WITHSCORES', 'LIMIT', 0, want));
        for (const e of page) {
          const id = idOf(e);
          if ((e.score === min && atMin.has(id)) || known.get(id) === Number(e.score)) continue;
          if (found.length > 0 && bytes + e.member.length > MAX_BATCH_BYTES) return { found, more: true };
          found.push(e);
          bytes += e.member.length;
          if (found.length >= config.batchSize) return { found, more: true };
        }
        if (page.length < want) return { found, more: false };
        // Keyset paging on the score; members that share the last score are skipped by hash next time.
        const last = page.at(-1)!.score;
        atMin = new Set([...(last === min ? atMin : []), ...page.filter((e) => e.score === last).map(idOf)]);
        min = last;
      }
    }

    async function importDeadBatch(): Promise<boolean> {
      const { found, more } = await nextEntries();
      if (found.length === 0) {
        resume = null;
        return false;
      }
      inPostgres = true;
      await recordFresh(source, sink, found.map((e) => deadLetterOfEntry(e, 'dead', config.removeAfterImport)));
      inPostgres = false;
      // Committed: now the broker side. ZREM of the exact member: a job rewritten meanwhile stays.
      if (config.removeAfterImport) await client.zrem(keys.dead, ...found.map((e) => e.member));
      for (const e of found) known.set(idOf(e), Number(e.score));
      const top = Math.max(...found.map((e) => Number(e.score)));
      if (cursor === null || top > cursor) cursor = top;
      for (const [id, score] of known) if (score < cursor - config.lookbackMs / 1000) known.delete(id);
      if (more) {
        const last = found.at(-1)!;
        const sameScore = found.filter((e) => e.score === last.score).map(idOf);
        const before = resume && resume.min === last.score ? [...resume.atMin] : [];
        resume = { min: last.score, atMin: new Set([...before, ...sameScore]) };
      } else resume = null;
      return more;
    }

    // The retry set is scored by the next attempt's time, not the failure's: it is read whole on
    // each look (it is as long as the jobs still retrying), its members past the count recorded once.
    const retryKnown = new Set<string>();
    async function importRetrySet(): Promise<void> {
      if (config.retryCountAtLeast === undefined) return;
      const seen = new Set<string>();
      let batch: NewDeadLetter[] = [];
      let taken: string[] = [];
      const flush = async () => {
        inPostgres = true;
        await recordFresh(source, sink, batch);
        inPostgres = false;
        for (const id of taken) retryKnown.add(id);
        batch = [];
        taken = [];
      };
      for (let start = 0; !signal.aborted; start += RETRY_PAGE) {
        const page = entriesOf(await client.zrangeBuffer(keys.retry, String(start), String(start + RETRY_PAGE - 1), 'WITHSCORES'));
        for (const e of page) {
          const id = idOf(e);
          seen.add(id);
          if (retryKnown.has(id)) continue;
          const d = deadLetterOfEntry(e, 'retry', false);
          if ((d.headers?.['sidekiq.retry_count'] as number | null) === null || (d.headers!['sidekiq.retry_count'] as number) < config.retryCountAtLeast) continue;
          batch.push(d);
          taken.push(id);
          if (batch.length >= config.batchSize) await flush();
        }
        if (page.length < RETRY_PAGE) break;
      }
      await flush();
      for (const id of retryKnown) if (!seen.has(id)) retryKnown.delete(id);
    }

    while (!signal.aborted) {
      if (lost) throw lost;
      const more = await importDeadBatch();
      if (!more) await importRetrySet();
      const lag = cursor === null ? await client.zcard(keys.dead) : await client.zcount(keys.dead, `(${cursor}`, '+inf');
      sink.health({ lag });
      if (!more) await pause(config.pollMs, signal);
    }
  } catch (err) {
    if (inPostgres || err instanceof ConnectorError) throw err;
    if (signal.aborted) return; // a Redis call cut short by the shutdown
    throw redisError(err, secret);
  } finally {
    signal.removeEventListener('abort', abort);
    client.disconnect();
  }
}
