// The import side of the BullMQ connector: the application's failed set, read in score order (the
// score is the failure's time, finishedOn) from a cursor, so a failed set of 100k jobs is walked
// once, not on every poll. Write, then acknowledge: a batch's rows commit first; only then does the
// cursor move and, when the source says so, the jobs leave Redis. A crash in between rereads the
// batch, and the rows Triage holds say which failures are already recorded.
//
// Identity: message id = the job id; one failure = one generation, told apart by its time. A job
// that fails again (after Triage's redrive, or the application's own retry) fails at a new time and
// becomes the next generation; rereading a failure already recorded adds nothing.
import { QueueEvents } from 'bullmq';
import { pg } from '@/lib/db';
import type { NewDeadLetter } from '@/lib/model/dead-letter';
import { log } from '@/lib/log';
import type { ConnectorSource, ImportSink } from '../types';
import { ConnectorError } from '../types';
import { redactUrl } from '../secrets';
import type { BullmqConfig, BullmqSecret } from './config';
import { appQueue, importConnection, keysOf, openRedis, redisError } from './connection';
import { deadLetterOfJob, failedAtOf, type FailedJob } from './map-job';

/** Failed-set entries read per round trip while looking for new failures. */
const PAGE = 1_000;
/** A batch stops growing at this many payload bytes (a job's data may be megabytes). */
const MAX_BATCH_BYTES = 32 * 1024 * 1024;

interface Entry {
  id: string;
  score: number;
}

/** What Triage holds of a message already: to tell a recorded failure from the next generation. */
interface Held {
  generation: number;
  deadAtMs: number;
  redriveCount: number;
  /** Triage sent this generation back (a redrive item went out). */
  redriven: boolean;
}

/** The newest failure time recorded for the source, in ms: where a restarted import resumes. */
async function recordedUpTo(sourceId: string): Promise<number | null> {
  // One index probe per status ((source, status, dead_at desc)) rather than a scan of the source's rows.
  const [r] = await pg()<{ ms: number | null }[]>`
    SELECT (extract(epoch FROM max(x.m)) * 1000)::float8 AS ms
    FROM unnest(enum_range(NULL::"DeadLetterStatus")) AS s(status),
    LATERAL (SELECT max(dead_at) AS m FROM dead_letters WHERE source_id = ${sourceId}::uuid AND status = s.status) x`;
  return r?.ms == null ? null : Math.round(r.ms);
}

/** Every generation Triage holds of these messages, those whose month retention dropped included. */
export async function heldOf(sourceId: string, messageIds: string[]): Promise<Map<string, Held[]>> {
  const held = new Map<string, Held[]>();
  if (messageIds.length === 0) return held;
  const rows = await pg()<({ messageId: string } & Held)[]>`
    SELECT k.message_id AS "messageId", k.generation, (extract(epoch FROM k.dead_at) * 1000)::float8 AS "deadAtMs",
           COALESCE(d.redrive_count, t.redrive_count, 0) AS "redriveCount",
           EXISTS (SELECT 1 FROM redrive_items i WHERE i.dead_letter_id = k.id
                   AND NOT (i.state::text IN ('skipped', 'failed') OR (i.state::text = 'pending' AND i.attempts = 0))) AS redriven
    -- One index probe per message id on (source, message id, generation), whatever the planner
    -- believes: with "message_id = ANY(…)", on a key table whose statistics lag its growth (a first
    -- import), it took all the source's keys and filtered or hashed them against the batch, a cost
    -- that grew with every row imported. OFFSET 0 keeps the lookup a per-id subquery.
    FROM unnest(${messageIds}::text[]) AS m(message_id)
    CROSS JOIN LATERAL (SELECT id, message_id, generation, dead_at FROM dead_letter_keys
                        WHERE source_id = ${sourceId}::uuid AND message_id = m.message_id OFFSET 0) k
    -- The key table finds each row (id and dead_at: its partition); a key whose partition was dropped
    -- is still held, its count kept by its tombstone (else the loop guard would start again from 0).
    LEFT JOIN dead_letters d ON d.id = k.id AND d.dead_at = k.dead_at
    LEFT JOIN dead_letter_tombstones t ON d.id IS NULL AND t.id = k.id`;
  for (const r of rows) {
    const list = held.get(r.messageId) ?? [];
    list.push({ generation: r.generation, deadAtMs: Math.round(r.deadAtMs), redriveCount: r.redriveCount, redriven: r.redriven });
    held.set(r.messageId, list);
  }
  return held;
}

/**
 * Generation and redrive count of each new failure, from the generations already held; failures
 * already recorded are left out. The loop guard's count is Triage's: one more than the previous
 * generation's when Triage redrove that one, the same when the application retried it itself.
 */
export function assignGenerations(failures: NewDeadLetter[], held: Map<string, Held[]>): { fresh: NewDeadLetter[]; recorded: number } {
  const fresh: NewDeadLetter[] = [];
  let recorded = 0;
  for (const d of failures) {
    const list = held.get(d.messageId) ?? [];
    const at = d.deadAt!.getTime();
    if (list.some((h) => h.deadAtMs === at)) {
      recorded++;
      continue;
    }
    const latest = list.reduce<Held | null>((a, h) => (!a || h.generation > a.generation ? h : a), null);
    const next: Held = {
      generation: latest ? latest.generation + 1 : 0,
      deadAtMs: at,
      redriveCount: latest ? latest.redriveCount + (latest.redriven ? 1 : 0) : 0,
      redriven: false,
    };
    list.push(next);
    held.set(d.messageId, list);
    fresh.push({ ...d, generation: next.generation, redriveCount: next.redriveCount });
  }
  return { fresh, recorded };
}

/** Parse ZRANGEBYSCORE … WITHSCORES. */
function entries(flat: string[]): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: flat[i]!, score: Number(flat[i + 1]) });
  return out;
}

/** Wakes the idle import when the application's QueueEvents stream says a job failed. */
function waker(signal: AbortSignal) {
  let rung = false;
  let ring: (() => void) | null = null;
  return {
    ring() {
      rung = true;
      ring?.();
    },
    /** Resolves on a ring (or one since the last wait), abort, or after `ms`. */
    wait(ms: number): Promise<void> {
      if (rung || signal.aborted) {
        rung = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(t);
          ring = null;
          rung = false;
          signal.removeEventListener('abort', done);
          resolve();
        };
        const t = setTimeout(done, ms);
        ring = done;
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
}

export async function runBullmqImport(source: ConnectorSource<BullmqConfig, BullmqSecret>, sink: ImportSink, signal: AbortSignal): Promise<void> {
  const { config, secret } = source;
  const keys = keysOf(config);
  const wake = waker(signal);
  const { client, lost } = await importConnection(source, () => wake.ring());
  const queue = appQueue(config, client);
  let events: QueueEvents | null = null;
  // Whether a failure is Postgres's (passed on as it is) rather than Redis's (said as a ConnectorError).
  let inPostgres = false;
  try {
    if (!(await client.exists(keys.meta))) {
      throw new ConnectorError(
        'not_found',
        `No such BullMQ queue: "${config.queue}" with prefix "${config.prefix}" has no ${keys.meta} key on Redis at ${redactUrl(secret.url)}`,
      );
    }
    // The "failed" events wake an idle import at once; without them (a trimmed or unreachable
    // stream) the import still looks every pollMs.
    try {
      events = new QueueEvents(config.queue, { connection: await openRedis(secret, { name: `${source.name}:events`, blocking: true }), prefix: config.prefix });
      events.on('failed', () => wake.ring());
      events.on('error', (err) => log.debug({ err: redisError(err, secret).message, source: source.name }, 'BullMQ events stream error'));
    } catch (err) {
      log.warn({ source: source.name, error: redisError(err, secret).message }, 'BullMQ events unavailable; polling the failed set');
    }

    // Removing after import leaves only unimported jobs (and any a crash kept from being removed) in
    // the set: such a source walks it from the start once, removing those as it finds them recorded.
    inPostgres = true;
    let cursor = config.removeAfterImport ? null : await recordedUpTo(source.id);
    inPostgres = false;
    // Failures already imported at or after cursor - lookbackMs: rereading them costs no job reads.
    const known = new Map<string, number>();

    // Where a walk through a backlog goes on: after the last failure taken (its score, and the ids
    // taken at that score). Null: the next look starts lookbackMs before the cursor. So a backlog
    // (100k jobs failed within the lookback, say) is walked once, not from its start for each batch.
    let resume: { min: string; atMin: Set<string> } | null = null;

    /** The next failures not yet imported, in score order. */
    async function nextEntries(): Promise<{ found: Entry[]; more: boolean }> {
      let { min, atMin } = resume ?? { min: cursor === null ? '-inf' : String(cursor - config.lookbackMs), atMin: new Set<string>() };
      const found: Entry[] = [];
      for (;;) {
        const page = entries(await client.zrangebyscore(keys.failed, min, '+inf', 'WITHSCORES', 'LIMIT', 0, PAGE + atMin.size));
        for (const e of page) {
          if ((String(e.score) === min && atMin.has(e.id)) || known.get(e.id) === e.score) continue;
          found.push(e);
          if (found.length >= config.batchSize) return { found, more: true };
        }
        if (page.length < PAGE + atMin.size) return { found, more: false };
        // Keyset paging on the score; entries that share the last score are skipped by id next time.
        const last = page.at(-1)!.score;
        atMin = new Set([...(String(last) === min ? atMin : []), ...page.filter((e) => e.score === last).map((e) => e.id)]);
        min = String(last);
      }
    }

    async function importBatch(): Promise<boolean> {
      const { found, more } = await nextEntries();
      if (found.length === 0) {
        resume = null;
        return false;
      }
      const pipeline = client.pipeline();
      for (const e of found) pipeline.hgetallBuffer(keys.job(e.id));
      const replies = (await pipeline.exec()) ?? [];
      const jobs: FailedJob[] = [];
      let bytes = 0;
      let taken = 0;
      for (const [k, e] of found.entries()) {
        const [err, hash] = replies[k] ?? [new Error('no reply from Redis'), null];
        if (err) throw err;
        const h = hash as Record<string, Buffer> | null;
        const size = h?.data?.length ?? 0;
        if (jobs.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
        taken = k + 1;
        // Gone, or taken out of the failed state since the set was read: not a failure (any more).
        if (!h?.finishedOn) continue;
        bytes += size;
        jobs.push({ id: e.id, score: e.score, hash: h });
      }
      const failures = jobs.map((j) => deadLetterOfJob(j, config.queue));
      inPostgres = true;
      const held = await heldOf(source.id, [...new Set(failures.map((f) => f.messageId))]);
      const { fresh } = assignGenerations(failures, held);
      if (fresh.length > 0) await sink.record(fresh);
      inPostgres = false;
      // Committed: now the broker side.
      if (config.removeAfterImport && jobs.length > 0) await removeImported(jobs);
      const done = found.slice(0, taken);
      for (const e of done) known.set(e.id, e.score);
      const top = Math.max(...done.map((e) => e.score), ...jobs.map(failedAtOf));
      if (cursor === null || top > cursor) cursor = top;
      for (const [id, score] of known) if (score < cursor - config.lookbackMs) known.delete(id);
      const partial = more || taken < found.length;
      if (partial && taken > 0) {
        const last = found[taken - 1]!;
        const sameScore = found
          .slice(0, taken)
          .filter((e) => e.score === last.score)
          .map((e) => e.id);
        const before = resume && resume.min === String(last.score) ? [...resume.atMin] : [];
        resume = { min: String(last.score), atMin: new Set([...before, ...sameScore]) };
      } else if (!partial) resume = null;
      return partial;
    }

    /** Remove imported jobs that are still the failure imported (not retried by the app meanwhile). */
    async function removeImported(jobs: FailedJob[]): Promise<void> {
      const check = client.pipeline();
      for (const j of jobs) check.zscore(keys.failed, j.id);
      const scores = (await check.exec()) ?? [];
      await Promise.all(
        jobs.map(async (j, k) => {
          const [err, score] = scores[k] ?? [null, null];
          if (err || score === null || Number(score) !== j.score) return;
          await queue
            .remove(j.id)
            .catch((e: unknown) =>
              log.warn(
                { source: source.name, jobId: j.id, error: redisError(e, secret).message },
                'imported job could not be removed; it stays in the failed set',
              ),
            );
        }),
      );
    }

    while (!signal.aborted) {
      if (lost()) throw lost();
      const more = await importBatch();
      const lag = await client.zcount(keys.failed, cursor === null ? '-inf' : `(${cursor}`, '+inf');
      sink.health({ lag });
      if (!more) await wake.wait(config.pollMs);
    }
  } catch (err) {
    if (inPostgres || err instanceof ConnectorError) throw err;
    if (signal.aborted) return; // a Redis call cut short by the shutdown
    throw redisError(err, secret);
  } finally {
    await events?.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    client.disconnect();
  }
}
