// Where a read goes: readDb(actor) is the one place that decides. With DATABASE_REPLICA_URL set, the
// pages' and the API's reads (lists, counts, search, exports, clusters, SLA, charts) go to the
// streaming replica, unless
//   - the replica is behind (replay lag over DATABASE_REPLICA_MAX_LAG_MS), does not answer, or is no
//     standby (a promoted one has left the primary's history): then to the primary, a warning logged
//     once per change and counted in triage_db_primary_reads_total;
//   - the person asking wrote something the replica has not replayed yet (read-your-writes below).
// Writes, and every read that feeds a write or a decision (an approval rule, a redrive selection, the
// audit chain), never come here: they use db() / pg() / the transaction's tx, on the primary.
//
// Read-your-writes: after a person's request that may have written (a non-GET API call, a server
// action, an assistant's tool call that acts), markWrite() stores the primary's WAL insert position, taken after the commit, in Redis
// under that user for 10 minutes (so every app machine sees it). That person's reads go to the
// primary until the replica's replayed position, read by the lag check, has passed it: exact, not a
// guessed time window, and one Redis GET per read, no replica round trip.
//
// The lag check, as operators measure it: the primary's flushed WAL position, then the replica's
// replayed one. Caught up (its replay at or past the primary's): lag 0. Behind: how long it has been
// behind, i.e. since this process first saw the primary past the replica's replay position (each
// check keeps the primary's position and time). Not the time since the last replayed commit: an idle
// primary still writes WAL without commits (checkpoints, standby snapshots), and a check landing
// before the replica replays it would read minutes of "lag" and send reads to the primary for
// nothing. Only when this process has no check that bounds it (its first, or a replica behind for
// longer than the kept history) does the time since the last replayed commit stand in, erring towards
// the primary. Each process checks at most every DATABASE_REPLICA_CHECK_MS, and again at once when a
// replica connection closes (the replica stopped or restarted).
import { Counter, Gauge, Registry } from 'prom-client';
import type postgres from 'postgres';
import { pg, replicaPg } from './pools';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { redis } from '@/lib/redis';

type Reason = 'lag' | 'down' | 'not_standby';

interface Verdict {
  url: string;
  at: number;
  /** Null: reads may go to the replica. */
  refuse: Reason | null;
  lagMs: number | null;
  /** The replica's replayed WAL position at the check. */
  replayed: bigint | null;
}

const CHECK_TIMEOUT_MS = 2_000;
const WRITE_MARK_SECONDS = 600;
// The primary's positions kept to time a replica's lag: enough for the lag limit (300 s at most) at
// the shortest check interval; older ones are dropped.
const HISTORY_MS = 600_000;
const HISTORY_MAX = 4_096;

/** The primary's flushed WAL position at a check, and when. */
interface PrimarySample {
  lsn: bigint;
  at: number;
}

const g = globalThis as unknown as {
  __triageReplica?: { verdict?: Verdict; pending?: Promise<Verdict>; metrics: ReplicaMetrics; history: PrimarySample[] };
};

interface ReplicaMetrics {
  registry: Registry;
  up: Gauge;
  lag: Gauge;
  primaryReads: Counter;
}

function state() {
  if (!g.__triageReplica) {
    const registry = new Registry();
    g.__triageReplica = {
      history: [],
      metrics: {
        registry,
        up: new Gauge({
          name: 'triage_db_replica_up',
          help: 'Reads go to the replica: 1, or back to the primary: 0 (behind, down, or no standby)',
          registers: [registry],
        }),
        lag: new Gauge({
          name: 'triage_db_replica_lag_seconds',
          help: 'Replay lag of the replica at the last check (NaN: it did not answer, or no standby)',
          registers: [registry],
        }),
        primaryReads: new Counter({
          name: 'triage_db_primary_reads_total',
          help: 'Reads sent to the primary although a replica is configured, by reason (lag, down, not_standby, own_write)',
          labelNames: ['reason'],
          registers: [registry],
        }),
      },
    };
  }
  return g.__triageReplica;
}

/** This process's replica metrics, for /api/metrics; null without a replica. */
export function replicaMetrics(): Registry | null {
  return env().DATABASE_REPLICA_URL ? state().metrics.registry : null;
}

/** "16/B374D848" → a number that orders as the WAL does. */
export function parseLsn(lsn: string | null): bigint | null {
  if (!lsn) return null;
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

function replica(): postgres.Sql {
  // A closed connection (the replica stopped, restarted, or cut us off) voids the last check.
  return replicaPg(() => {
    if (g.__triageReplica?.verdict) g.__triageReplica.verdict.at = 0;
  });
}

async function measure(url: string): Promise<Verdict> {
  const at = Date.now();
  const { DATABASE_REPLICA_MAX_LAG_MS: maxLag } = env();
  let timer: NodeJS.Timeout | undefined;
  try {
    const probe = (async () => {
      const [p] = await pg()<{ lsn: string }[]>`SELECT pg_current_wal_flush_lsn()::text AS lsn`;
      const [r] = await replica()<{ standby: boolean; replayed: string | null; since_ms: number | null }[]>`
        SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed,
               (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_ms`;
      return { primary: parseLsn(p!.lsn)!, ...r! };
    })();
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    });
    const r = await Promise.race([probe, timeout]);
    if (!r.standby) return { url, at, refuse: 'not_standby', lagMs: null, replayed: null };
    const replayed = parseLsn(r.replayed);
    const lagMs = replayLag(state().history, { lsn: r.primary, at }, replayed, r.since_ms);
    return { url, at, refuse: lagMs > maxLag ? 'lag' : null, lagMs, replayed };
  } catch (e) {
    log.debug({ err: e }, 'replica check failed');
    return { url, at, refuse: 'down', lagMs: null, replayed: null };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The replica's lag at `now` (the primary's position at this check, added to `history`): 0 when it
 * has replayed up to the primary; else at most the time since the newest kept check whose position
 * it has replayed (what it lacks was written after that check, and no check may have run in between:
 * nobody read, or the replica was down), and at most the time since its last replayed commit; the
 * latter alone when no kept check bounds it. An upper bound, so a gap never reads as fresh.
 */
export function replayLag(history: PrimarySample[], now: PrimarySample, replayed: bigint | null, sinceCommitMs: number | null): number {
  while (history.length > 0 && (history.length >= HISTORY_MAX || now.at - history[0]!.at > HISTORY_MS)) history.shift();
  history.push(now);
  if (replayed !== null && replayed >= now.lsn) return 0;
  if (replayed !== null) {
    // The newest check at which the replica had (since) replayed all the primary had then written:
    // what it lacks was written at any time after it.
    for (let i = history.length - 2; i >= 0; i--) {
      if (history[i]!.lsn <= replayed) return Math.max(0, Math.min(now.at - history[i]!.at, sinceCommitMs ?? Infinity));
    }
  }
  return Math.max(0, sinceCommitMs ?? Infinity);
}

function report(before: Verdict | undefined, now: Verdict): void {
  const { metrics } = state();
  metrics.up.set(now.refuse ? 0 : 1);
  metrics.lag.set(now.lagMs === null ? NaN : now.lagMs / 1000);
  if (now.refuse === (before?.refuse ?? null)) return;
  const lag = now.lagMs === null ? undefined : Number.isFinite(now.lagMs) ? Math.round(now.lagMs) : 'no transaction replayed yet';
  if (now.refuse)
    log.warn(
      { reason: now.refuse, lagMs: lag },
      `reads go to the primary: the replica is ${now.refuse === 'lag' ? 'behind' : now.refuse === 'down' ? 'not answering' : 'not a standby'}`,
    );
  else if (before) log.info({ lagMs: lag }, 'reads go to the replica again');
}

/** The replica's fitness, measured at most every DATABASE_REPLICA_CHECK_MS (one check at a time). */
export async function replicaVerdict(): Promise<Verdict> {
  const url = env().DATABASE_REPLICA_URL!;
  const s = state();
  const v = s.verdict;
  if (v && v.url === url && Date.now() - v.at < env().DATABASE_REPLICA_CHECK_MS) return v;
  s.pending ??= measure(url)
    .then((next) => {
      report(s.verdict, next);
      s.verdict = next;
      return next;
    })
    .finally(() => {
      s.pending = undefined;
    });
  return s.pending;
}

// What a server that stopped or went away under a query answers: its shutdown codes and the driver's.
const GONE = new Set(['57P01', '57P02', '57P03', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/**
 * Whether `e` is a read that the replica failed by going away under it (it stopped between the check
 * and the query): then the replica counts as down from now, and the read is worth once more, on the
 * primary. False without a replica or for any other error.
 */
export function replicaReadFailed(e: unknown): boolean {
  if (!env().DATABASE_REPLICA_URL) return false;
  const code = e && typeof e === 'object' && 'code' in e ? String((e as { code: unknown }).code) : '';
  if (!GONE.has(code)) return false;
  const s = state();
  const down: Verdict = { url: env().DATABASE_REPLICA_URL!, at: Date.now(), refuse: 'down', lagMs: null, replayed: null };
  report(s.verdict, down);
  s.verdict = down;
  return true;
}

/**
 * A read function that runs once more, on the primary, when the replica went away under it (it
 * stopped between the check and the query): the pages, the API and the assistant then answer from
 * the primary, never with an error. Only for functions that write nothing.
 */
export function retriedOnPrimary<A extends unknown[], R>(read: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await read(...args);
    } catch (e) {
      if (replicaReadFailed(e)) return read(...args);
      throw e;
    }
  };
}

/** Who reads, as far as routing cares: a person (their own writes) or the system. A lib/auth Principal is one. */
type Principal = { userId: string } | { system: true };

const writeKey = (userId: string) => `${env().QUEUE_PREFIX}:db-wrote:${userId}`;

/**
 * Where this actor's reads go: the replica when it is fit and has replayed the actor's own last
 * write, else the primary. Call it once per read function, where pg() would be.
 */
export async function readDb(actor: Principal): Promise<postgres.Sql> {
  if (!env().DATABASE_REPLICA_URL) return pg();
  const v = await replicaVerdict();
  const primary = (reason: Reason | 'own_write') => {
    state().metrics.primaryReads.inc({ reason });
    return pg();
  };
  if (v.refuse) return primary(v.refuse);
  if ('userId' in actor) {
    let wrote: bigint | null;
    try {
      wrote = parseLsn(await redis().get(writeKey(actor.userId)));
    } catch (e) {
      // Whether the person wrote is unknown: the primary answers them rightly either way.
      log.warn({ err: e }, 'read-your-writes marker unreadable; reading from the primary');
      return primary('own_write');
    }
    if (wrote !== null && (v.replayed === null || v.replayed < wrote)) return primary('own_write');
  }
  return replica();
}

/** The primary's WAL insert position now: what a read must see to include every commit so far. */
export async function primaryLsn(): Promise<string> {
  const [r] = await pg()<{ lsn: string }[]>`SELECT pg_current_wal_insert_lsn()::text AS lsn`;
  return r!.lsn;
}

const SEEING_WAIT_MS = 2_000;
const SEEING_POLL_MS = 25;

/**
 * readDb(actor), for a read that must include everything up to the primary's position `lsn` (an
 * export whose count was taken there: a replica a moment behind would stream fewer rows than it
 * said, with no error): the replica once it has replayed that far, waiting at most 2 s, else the
 * primary. Whatever goes wrong asking the replica sends the read to the primary: it has every row.
 */
export async function readDbSeeing(actor: Principal, lsn: string): Promise<postgres.Sql> {
  const sql = await readDb(actor);
  if (sql === pg()) return sql;
  let timer: NodeJS.Timeout | undefined;
  let waiting = true;
  const caughtUp = (async () => {
    const until = Date.now() + SEEING_WAIT_MS;
    while (waiting) {
      const [r] = await sql<{ ok: boolean }[]>`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS ok`;
      if (r?.ok) return true;
      if (Date.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, SEEING_POLL_MS));
    }
    return false;
  })();
  // A replica that stops answering without closing the connection must not hold the read: the
  // whole wait is bounded, not just the time between polls.
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), SEEING_WAIT_MS + CHECK_TIMEOUT_MS);
  });
  try {
    if (await Promise.race([caughtUp, timeout])) return sql;
    state().metrics.primaryReads.inc({ reason: 'lag' });
  } catch (e) {
    if (!replicaReadFailed(e)) log.warn({ err: e }, 'replica position unreadable; reading from the primary');
    state().metrics.primaryReads.inc({ reason: 'down' });
  } finally {
    waiting = false;
    clearTimeout(timer);
    caughtUp.catch(() => undefined);
  }
  return pg();
}

/**
 * After a person's request that may have written (its transaction committed or rolled back): their
 * reads stay on the primary until the replica has replayed up to here. Never throws: the write is
 * done; a marker lost means at most one stale page.
 */
export async function markWrite(actor: Principal | undefined): Promise<void> {
  if (!actor || !('userId' in actor) || !env().DATABASE_REPLICA_URL) return;
  try {
    await redis().set(writeKey(actor.userId), await primaryLsn(), 'EX', WRITE_MARK_SECONDS);
  } catch (e) {
    log.warn({ err: e }, 'read-your-writes marker not stored');
  }
}
