// The import side of the Sidekiq connector: the application's dead set ("dead", scored by the time
// Sidekiq killed the job), read in score order from a cursor, and, when the source says so, the
// jobs in the retry set past a retry count. Write, then acknowledge: a batch's rows commit first;
// only then does the cursor move and, when the source says so, the jobs leave the dead set (ZREM of
// the exact member, so a job Sidekiq rewrote meanwhile stays). A crash in between rereads the batch,
// and the rows Triage holds say which failures are already recorded.
//
// Throughput: reading the next batches from Redis and mapping them overlaps the writes of the last
// ones, up to MAX_WRITES of them at once (as the RabbitMQ import writes); each batch settles (cursor,
// ZREM) in read order, only after its own commit.
//
// Identity: message id = the jid; one failure = one generation, told apart by its time (retried_at,
// or failed_at): the same (jid, failure time) reread adds nothing, a job that dies again after a
// redrive (which clears them) is the next generation, as the BullMQ connector counts them.
import { createHash } from 'node:crypto';
import { sleep } from '@/lib/clock';
import type { NewDeadLetter } from '@/lib/model/dead-letter';
import { assignGenerations, heldOf } from '../bullmq/import';
import type { ConnectorSource, ImportSink } from '../types';
import { ConnectorError } from '../types';
import { keysOf, type SidekiqConfig, type SidekiqSecret } from './config';
import { assertSidekiqThere, importConnection, redisError } from './connection';
import { deadLetterOfEntry, type SetEntry } from './job';

/** A batch stops growing at this many payload bytes (a job may be megabytes). */
const MAX_BATCH_BYTES = 32 * 1024 * 1024;
/** Payload bytes being written at once: large jobs, fewer batches in flight. */
const INFLIGHT_MAX_BYTES = 64 * 1024 * 1024;
/** Retry-set members read per round trip. */
const RETRY_PAGE = 500;
/**
 * Batches being written at once. One left Postgres idle while Redis was read, the rows mapped and
 * the held generations looked up, and Redis idle while Postgres committed (the import ran at 2,500
 * jobs/s in the Sidekiq bench); three keep both busy, as in the RabbitMQ import.
 */
export const MAX_WRITES = 3;
/** During a long walk, the lag is read again at most this often. */
const LAG_EVERY_MS = 1_000;

/** A failure of the write to Postgres: passed on as it is, not said as Redis's. */
class WriteFailed {
  constructor(readonly cause: unknown) {}
}

const idOf = (e: SetEntry) => createHash('sha1').update(e.member).digest('base64');

type Entry = SetEntry & { id: string };

function entriesOf(flat: Buffer[]): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const e = { member: flat[i]!, score: flat[i + 1]!.toString('latin1') };
    out.push({ ...e, id: idOf(e) });
  }
  return out;
}

/** Record the failures not yet held; resolves once they committed. */
async function recordFresh(source: ConnectorSource<SidekiqConfig, SidekiqSecret>, sink: ImportSink, failures: NewDeadLetter[]): Promise<void> {
  if (failures.length === 0) return;
  const held = await heldOf(source.id, [...new Set(failures.map((f) => f.messageId))]);
  const { fresh } = assignGenerations(failures, held);
  if (fresh.length > 0) await sink.record(fresh);
}

export async function runSidekiqImport(source: ConnectorSource<SidekiqConfig, SidekiqSecret>, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { config, secret } = source;
  const keys = keysOf(config);
  const { client, lost } = await importConnection(source);
  // The first failure of a write or of a batch's settling: the walk stops at it.
  let failed: unknown = null;
  const abort = () => client.disconnect();
  signal.addEventListener('abort', abort, { once: true });
  // Writes under way (settled either way), and the batches' settling, one after the other in read order.
  const writing = new Set<Promise<unknown>>();
  let settled: Promise<void> = Promise.resolve();
  try {
    await assertSidekiqThere(client, config, secret);
    // The newest death seen (a score, in seconds); null: walk the dead set from its start, which a
    // restarted import does (the rows held say what is recorded: the set is capped, 10,000 by default).
    let cursor: number | null = null;
    // Members imported at or after cursor - lookback, by their hash: rereading them costs no write.
    const known = new Map<string, number>();
    // Where a walk through a backlog goes on: after the last entry read (its score, and the members read at it).
    let resume: { min: string; atMin: Set<string> } | null = null;
    // Message ids of the rows being written, with their write: a later batch holding the same jid
    // waits for it, so that the generations it assigns count that failure.
    const pendingIds = new Map<string, Promise<unknown>>();
    let lagAt = 0;
    let writingBytes = 0;

    async function nextEntries(): Promise<{ found: Entry[]; more: boolean }> {
      let { min, atMin } = resume ?? { min: cursor === null ? '-inf' : String(cursor - config.lookbackMs / 1000), atMin: new Set<string>() };
      const found: Entry[] = [];
      let bytes = 0;
      for (;;) {
        const want = config.batchSize + atMin.size;
        const page = entriesOf(await client.zrangebyscoreBuffer(keys.dead, min, '+inf', 'WITHSCORES', 'LIMIT', 0, want));
        for (const e of page) {
          if ((e.score === min && atMin.has(e.id)) || known.get(e.id) === Number(e.score)) continue;
          if (found.length > 0 && bytes + e.member.length > MAX_BATCH_BYTES) return { found, more: true };
          found.push(e);
          bytes += e.member.length;
          if (found.length >= config.batchSize) return { found, more: true };
        }
        if (page.length < want) return { found, more: false };
        // Keyset paging on the score; members that share the last score are skipped by hash next time.
        const last = page.at(-1)!.score;
        atMin = new Set([...(last === min ? atMin : []), ...page.filter((e) => e.score === last).map((e) => e.id)]);
        min = last;
      }
    }

    /** Write a batch, at most MAX_WRITES at once; it settles after the batches read before it. */
    function write(found: Entry[]): void {
      const rows = found.map((e) => deadLetterOfEntry(e, 'dead', config.removeAfterImport));
      const ids = [...new Set(rows.map((r) => r.messageId))];
      const before = ids.map((id) => pendingIds.get(id)).filter((p): p is Promise<unknown> => p !== undefined);
      const recorded = (async () => {
        if (before.length) await Promise.all(before);
        try {
          await recordFresh(source, sink, rows);
        } catch (err) {
          throw new WriteFailed(err);
        }
      })();
      const done = recorded.then(
        () => undefined,
        () => undefined,
      );
      const bytes = found.reduce((n, e) => n + e.member.length, 0);
      for (const id of ids) pendingIds.set(id, done);
      writing.add(done);
      writingBytes += bytes;
      void done.then(() => {
        writing.delete(done);
        writingBytes -= bytes;
        for (const id of ids) if (pendingIds.get(id) === done) pendingIds.delete(id);
      });
      settled = settled.then(() => settle(found, recorded));
    }

    /** After its commit, the batch's broker side: ZREM of the exact members (a job rewritten meanwhile stays), the cursor. */
    async function settle(found: Entry[], recorded: Promise<void>): Promise<void> {
      try {
        await recorded;
        // Committed, not settled (a failure, or the shutdown): reread by the next walk, and absorbed.
        if (failed || signal.aborted) return;
        if (config.removeAfterImport) await client.zrem(keys.dead, ...found.map((e) => e.member));
        let top = cursor ?? -Infinity;
        for (const e of found) {
          const score = Number(e.score);
          known.set(e.id, score);
          if (score > top) top = score;
        }
        cursor = top;
        for (const [id, score] of known) if (score < cursor - config.lookbackMs / 1000) known.delete(id);
        if (Date.now() - lagAt >= LAG_EVERY_MS) await reportLag();
      } catch (err) {
        failed ??= err;
      }
    }

    async function reportLag(): Promise<void> {
      lagAt = Date.now();
      const lag = cursor === null ? await client.zcard(keys.dead) : await client.zcount(keys.dead, `(${cursor}`, '+inf');
      sink.health({ lag });
    }

    /** One look at the dead set: every batch after the cursor read and written; resolves once all settled. */
    async function walkDead(): Promise<void> {
      resume = null;
      for (;;) {
        if (lost()) throw lost();
        if (failed || signal.aborted) break;
        const { found, more } = await nextEntries();
        if (found.length === 0) break;
        while (writing.size >= MAX_WRITES || (writing.size > 0 && writingBytes >= INFLIGHT_MAX_BYTES)) await Promise.race(writing);
        if (failed || signal.aborted) break;
        write(found);
        if (!more) break;
        const last = found.at(-1)!;
        const sameScore = found.filter((e) => e.score === last.score).map((e) => e.id);
        const before: string[] = resume && resume.min === last.score ? [...resume.atMin] : [];
        resume = { min: last.score, atMin: new Set([...before, ...sameScore]) };
      }
      resume = null;
      await settled;
      if (failed) throw failed;
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
        try {
          await recordFresh(source, sink, batch);
        } catch (err) {
          throw new WriteFailed(err);
        }
        for (const id of taken) retryKnown.add(id);
        batch = [];
        taken = [];
      };
      for (let start = 0; !signal.aborted; start += RETRY_PAGE) {
        const page = entriesOf(await client.zrangeBuffer(keys.retry, String(start), String(start + RETRY_PAGE - 1), 'WITHSCORES'));
        for (const e of page) {
          seen.add(e.id);
          if (retryKnown.has(e.id)) continue;
          const d = deadLetterOfEntry(e, 'retry', false);
          if ((d.headers?.['sidekiq.retry_count'] as number | null) === null || (d.headers!['sidekiq.retry_count'] as number) < config.retryCountAtLeast)
            continue;
          batch.push(d);
          taken.push(e.id);
          if (batch.length >= config.batchSize) await flush();
        }
        if (page.length < RETRY_PAGE) break;
      }
      await flush();
      for (const id of retryKnown) if (!seen.has(id)) retryKnown.delete(id);
    }

    while (!signal.aborted) {
      if (lost()) throw lost();
      await walkDead();
      await importRetrySet();
      await reportLag();
      await sleep(config.pollMs, signal);
    }
  } catch (err) {
    if (err instanceof WriteFailed) throw err.cause;
    if (err instanceof ConnectorError) throw err;
    if (signal.aborted) return; // a Redis call cut short by the shutdown
    throw redisError(err, secret);
  } finally {
    signal.removeEventListener('abort', abort);
    // The writes under way finish (their rows commit) before the import returns; not settled, they are reread.
    await settled;
    client.disconnect();
  }
}
