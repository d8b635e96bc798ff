// Write admission: ingest, connector imports, the runtime's sweeper and the search indexer share one
// bounded budget of concurrent write work, so a storm of dead letters cannot take every core of
// Postgres from the pages. The budget is counted twice: in this process (a full process asks Redis
// nothing) and across processes, as leases in a Redis sorted set scored by their expiry. Taking a
// lease is one script call per batch (never per row); a holder renews it while it writes, so a
// killed process's lease simply expires and its share comes back by itself.
// Refused work is never lost: ingest answers 503 + Retry-After (the forwarder retries, idempotently),
// a connector keeps its batch unacknowledged on the broker and pulls nothing more until admitted, the
// sweeper leaves the jobs in Redis. If Redis itself cannot answer, writes go through unbounded:
// the budget protects the pages, it is not what keeps the data safe.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import type { RedisOptions } from 'ioredis';
import { redisConnection, type RedisClient } from '@/lib/redis';

export const WRITERS = ['ingest', 'connectors', 'sweeper', 'indexer'] as const;
export type Writer = (typeof WRITERS)[number];

export interface WriteLease {
  /** Give the share back (idempotent); counts the time this writer waited into the stats. */
  release(): Promise<void>;
  /** True while Redis no longer holds this lease (it expired under a stalled holder) and it is not yet taken again. */
  readonly lost: boolean;
  /**
   * Before each further write under this lease: true at once while it is held; after a loss, waits
   * (as `acquire` does) until the share is taken again, or false when `signal` aborts first (stop).
   */
  ensure(opts?: { signal?: AbortSignal }): Promise<boolean>;
}

export interface AdmissionStats {
  size: number;
  inUse: number;
  /**
   * Per writer: admissions that had to wait, refusals (given up), seconds spent waiting, and leases
   * found expired by their own renewal (the holder had stalled past WRITE_BUDGET_LEASE_MS).
   */
  writers: Record<Writer, { waits: number; refusals: number; throttledSeconds: number; lostLeases: number }>;
}

// Drop expired leases and this process's orphans (ARGV[4..]), then take one if fewer than ARGV[2]
// are live. Redis's clock, not each process's: leases of processes on different hosts compare on one
// clock. The orphans ride along so that reclaiming them costs an acquire no round trip of its own.
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if #ARGV > 3 then redis.call('ZREM', KEYS[1], unpack(ARGV, 4)) end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
return 1`;
// Extend a live lease; 0 when it had already expired (a stalled event loop), gone or not yet swept:
// an expired share may already be someone else's, so it is taken again only through ACQUIRE.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not expiry or tonumber(expiry) <= now then
  redis.call('ZREM', KEYS[1], ARGV[2])
  return 0
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) * 2)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
return 1`;
const IN_USE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`;

/** The options of the budget's own Redis connection (a test opens one alike to hold it up). */
export const ADMISSION_REDIS_OPTIONS: RedisOptions = { maxRetriesPerRequest: 1, commandTimeout: 1_000 };

const FIRST_BACKOFF_MS = 20;
// Orphans kept at most: past that the oldest are left to expire in Redis by themselves.
const MAX_ORPHANS = 256;
const MAX_BACKOFF_MS = 500;

/** WRITE_BUDGET; 0: no budget (every writer admitted at once, nothing asked of Redis). */
export function defaultWriteBudget(): number {
  return env().WRITE_BUDGET;
}

export class WriteBudget {
  readonly size: number;
  private readonly leaseMs: number;
  private readonly leasesKey: string;
  private readonly statsKey: string;
  private local = 0;
  /** Waiters of this process, woken when one of its leases is given back. */
  private wakers = new Set<() => void>();
  private client: RedisClient | null;
  private readonly ownClient: boolean;
  private lastRedisWarning = 0;
  /**
   * Lease ids whose acquire or release got no answer in time: Redis may still have granted (or kept)
   * them, so they are removed as soon as Redis answers again rather than left to expire. By id, the
   * time it was given up: one older than a lease has expired in Redis anyway and is dropped.
   */
  private orphans = new Map<string, number>();

  constructor(opts: { size?: number; leaseMs?: number; redis?: RedisClient; prefix?: string } = {}) {
    this.size = opts.size ?? defaultWriteBudget();
    this.leaseMs = opts.leaseMs ?? env().WRITE_BUDGET_LEASE_MS;
    // Under the queue prefix: its hash tag keeps both keys in one Redis Cluster slot.
    const prefix = opts.prefix ?? env().QUEUE_PREFIX;
    this.leasesKey = `${prefix}:admission:leases`;
    this.statsKey = `${prefix}:admission:stats`;
    this.ownClient = !opts.redis;
    this.client = opts.redis ?? null;
  }

  private redis(): RedisClient {
    // A command timeout: Redis away costs a write a second at most, never a hang.
    this.client ??= redisConnection('producer', ADMISSION_REDIS_OPTIONS);
    return this.client;
  }

  /** A lease now, or null when the budget is spent (counted as a refusal). */
  async tryAcquire(writer: Writer): Promise<WriteLease | null> {
    return this.acquire(writer, { maxWaitMs: 0 });
  }

  /**
   * A lease once the budget has room. Waits (backing off, woken early by this process's releases)
   * until then, `maxWaitMs` at most, or until `signal` aborts: null then, counted as a refusal.
   */
  async acquire(writer: Writer, opts: { maxWaitMs?: number; signal?: AbortSignal } = {}): Promise<WriteLease | null> {
    if (this.size === 0) {
      this.local++;
      return this.lease(writer, 'unbounded', 0);
    }
    const started = performance.now();
    const lease = await this.waitFor(() => this.takeOnce(), opts);
    if (lease) return this.lease(writer, lease, performance.now() - started);
    return this.refused(writer, started);
  }

  /**
   * `work` under a lease, waiting for one; null when `signal` aborted first (the work did not run).
   * Work of several writes calls `lease.ensure()` before each.
   */
  async run<T>(writer: Writer, work: (lease: WriteLease) => Promise<T>, opts: { signal?: AbortSignal } = {}): Promise<{ value: T } | null> {
    const lease = await this.acquire(writer, opts);
    if (!lease) return null;
    try {
      return { value: await work(lease) };
    } finally {
      await lease.release();
    }
  }

  /** The budget as every process sees it (in use: live leases in Redis), for /api/metrics. */
  async stats(): Promise<AdmissionStats> {
    const [inUse, raw] = await Promise.all([this.redis().eval(IN_USE, 1, this.leasesKey) as Promise<number>, this.redis().hgetall(this.statsKey)]);
    const num = (k: string) => Number(raw[k] ?? 0);
    const writers = Object.fromEntries(
      WRITERS.map((w) => [
        w,
        { waits: num(`waits:${w}`), refusals: num(`refusals:${w}`), throttledSeconds: num(`throttled_ms:${w}`) / 1000, lostLeases: num(`lost:${w}`) },
      ]),
    ) as AdmissionStats['writers'];
    return { size: this.size, inUse: Number(inUse), writers };
  }

  async close(): Promise<void> {
    if (this.ownClient && this.client) this.client.disconnect();
    this.client = null;
  }

  /** `take` until it gives something, backing off (woken by this process's releases); null once out of time or aborted. */
  private async waitFor<T>(take: () => Promise<T | null>, opts: { maxWaitMs?: number; signal?: AbortSignal }): Promise<T | null> {
    const started = performance.now();
    let backoff = FIRST_BACKOFF_MS;
    for (;;) {
      if (opts.signal?.aborted) return null;
      const taken = await take();
      if (taken) return taken;
      const left = (opts.maxWaitMs ?? Infinity) - (performance.now() - started);
      if (left <= 0) return null;
      await this.pause(Math.min(left, backoff * (0.5 + Math.random())), opts.signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /** One try: this process's share first (no round trip when it is full), then Redis's. */
  private async takeOnce(): Promise<string | 'unbounded' | null> {
    if (this.local >= this.size) return null;
    this.local++;
    const id = randomUUID();
    const taken = await this.takeInRedis(id);
    if (taken === 'taken') return id;
    if (taken === 'no answer') return 'unbounded';
    this.local--;
    return null;
  }

  /**
   * ACQUIRE for `id`, removing the orphans in the same call. No answer in time (a timeout, a dropped
   * connection): Redis may have run it anyway, so the id is reclaimed at once (a ZREM on the same
   * connection runs after it) and again by later acquires until Redis confirms, never left taking a
   * share for a whole lease. One round trip either way: a stalled Redis costs one command timeout.
   */
  private async takeInRedis(id: string): Promise<'taken' | 'full' | 'no answer'> {
    const ids = this.liveOrphans();
    // Taken again under its own id (a lost lease): no acquire sent after this one may remove it.
    this.orphans.delete(id);
    try {
      const ok = await this.redis().eval(ACQUIRE, 1, this.leasesKey, this.leaseMs, this.size, id, ...ids);
      for (const o of ids) this.orphans.delete(o);
      return Number(ok) === 1 ? 'taken' : 'full';
    } catch (err) {
      this.redisWarning(err);
      this.addOrphan(id);
      void this.reclaimOrphans();
      return 'no answer';
    }
  }

  private addOrphan(id: string): void {
    this.orphans.set(id, Date.now());
    // Oldest first (insertion order): past the cap they are left to expire by themselves.
    for (const old of this.orphans.keys()) {
      if (this.orphans.size <= MAX_ORPHANS) break;
      this.orphans.delete(old);
    }
  }

  /** The orphans that may still hold a share (younger than a lease), the others forgotten. */
  private liveOrphans(): string[] {
    const since = Date.now() - this.leaseMs;
    for (const [id, at] of this.orphans) if (at <= since) this.orphans.delete(id);
    return [...this.orphans.keys()];
  }

  private async reclaimOrphans(): Promise<void> {
    const ids = this.liveOrphans();
    if (ids.length === 0) return;
    try {
      await this.redis().zrem(this.leasesKey, ...ids);
      for (const id of ids) this.orphans.delete(id);
    } catch (err) {
      this.redisWarning(err);
    }
  }

  private lease(writer: Writer, id: string | 'unbounded', waitedMs: number): WriteLease {
    const waited = waitedMs >= 1 ? Math.round(waitedMs) : 0;
    let released = false;
    let lost = false;
    let renewing = false;
    // Taken again, unless the holder gave the lease back meanwhile (then what was taken goes back
    // too). One retake at a time, shared by the renewal timer and ensure(): two ACQUIREs of one id
    // at once could find the share taken by the other and mark a held lease lost.
    let retaking: Promise<'taken' | 'full' | 'no answer'> | undefined;
    const retake = (): Promise<'taken' | 'full' | 'no answer'> => {
      if (released) return Promise.resolve('full');
      retaking ??= (async () => {
        try {
          const taken = await this.takeInRedis(id);
          if (taken === 'taken' && released) {
            this.addOrphan(id);
            await this.reclaimOrphans();
          }
          // Redis not answering: the write goes through unbounded, as an acquire's would.
          lost = taken !== 'taken';
          return taken;
        } finally {
          retaking = undefined;
        }
      })();
      return retaking;
    };
    // Renewed a third of the way through its life: a write longer than a lease keeps its share. A
    // renewal that finds the lease gone counts the loss and tries to take the share again (through
    // the budget, like any acquire); until then `lost` tells the holder, and `ensure` waits for it.
    const renew = async () => {
      if (renewing || released) return;
      renewing = true;
      try {
        if (lost) await retake();
        else if (!(await this.renew(id))) {
          lost = true;
          log.warn({ writer }, 'write admission: a lease expired under its holder (a stall longer than WRITE_BUDGET_LEASE_MS); taking it again');
          await this.redis()
            .hincrby(this.statsKey, `lost:${writer}`, 1)
            .catch((err: unknown) => this.redisWarning(err));
          await retake();
        }
      } finally {
        renewing = false;
      }
    };
    const timer = id === 'unbounded' ? undefined : setInterval(() => void renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
    timer?.unref();
    return {
      get lost() {
        return lost;
      },
      ensure: async (opts = {}) => {
        if (!lost) return !released;
        const taken = await this.waitFor(async () => {
          if (!lost || released) return true;
          return (await retake()) === 'full' ? null : true;
        }, opts);
        return taken === true && !released;
      },
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        this.local--;
        for (const wake of this.wakers) wake();
        if (id === 'unbounded' && !waited) return;
        // Given back and the wait counted in one round trip.
        const m = this.redis().multi();
        if (id !== 'unbounded') m.zrem(this.leasesKey, id);
        if (waited) m.hincrby(this.statsKey, `waits:${writer}`, 1).hincrby(this.statsKey, `throttled_ms:${writer}`, waited);
        await m.exec().catch((err: unknown) => {
          // Not given back for sure: reclaimed on a later call rather than left for a whole lease.
          if (id !== 'unbounded') this.addOrphan(id);
          this.redisWarning(err);
        });
      },
    };
  }

  /** False when Redis no longer held the lease; true when renewed, or when Redis does not answer (nothing known). */
  private async renew(id: string): Promise<boolean> {
    try {
      return Number(await this.redis().eval(RENEW, 1, this.leasesKey, this.leaseMs, id)) === 1;
    } catch (err) {
      this.redisWarning(err);
      return true;
    }
  }

  private async refused(writer: Writer, started: number): Promise<null> {
    const waited = Math.round(performance.now() - started);
    await this.redis()
      .multi()
      .hincrby(this.statsKey, `refusals:${writer}`, 1)
      .hincrby(this.statsKey, `throttled_ms:${writer}`, waited)
      .exec()
      .catch((err: unknown) => this.redisWarning(err));
    return null;
  }

  private async pause(ms: number, signal?: AbortSignal): Promise<void> {
    let wake: () => void = () => undefined;
    const woken = new Promise<void>((r) => (wake = r));
    this.wakers.add(wake);
    try {
      await Promise.race([sleep(ms, undefined, { signal }).catch(() => undefined), woken]);
    } finally {
      this.wakers.delete(wake);
    }
  }

  private redisWarning(err: unknown): void {
    if (Date.now() - this.lastRedisWarning < 10_000) return;
    this.lastRedisWarning = Date.now();
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'write admission: Redis does not answer; writes go through unbounded');
  }
}

const g = globalThis as unknown as { __triageWriteBudget?: WriteBudget };

/** This process's budget (size from WRITE_BUDGET). */
export function writeBudget(): WriteBudget {
  g.__triageWriteBudget ??= new WriteBudget();
  return g.__triageWriteBudget;
}

/** Close this process's budget's Redis connection (with the queues': closeQueues), so the process may exit. */
export async function closeWriteBudget(): Promise<void> {
  await g.__triageWriteBudget?.close();
  g.__triageWriteBudget = undefined;
}
