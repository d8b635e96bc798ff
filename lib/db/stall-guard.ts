// A Postgres step with no answer is given up after POSTGRES_STALL_MS (lib/env.ts). postgres.js 3.4.9
// can leave a query pending for good when its connection closes under it (porsager/postgres#1186; a
// Postgres restart does it): one such await held the dead-letter sweeper's only loop, and a
// connector's write held its import with the batch unacknowledged. The server's own timeouts cut a
// live statement long before (the default is twice the idle-in-transaction timeout), so only an
// answer that will never come is given up. Whoever gives up must be safe to do the work again: the
// dead-letter writes are idempotent by key.
import type postgres from 'postgres';
import { createPg } from './pools';
import { env } from '@/lib/env';

export class StalledError extends Error {}

/** The step, or a StalledError once it has gone `ms` without settling ("no answer in … s; given up, <then>"). */
export function stallGuard<T>(step: Promise<T>, then: string, ms = env().POSTGRES_STALL_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StalledError(`no answer in ${ms / 1000} s; given up, ${then}`)), ms);
  });
  return Promise.race([step, stalled]).finally(() => clearTimeout(timer));
}

/**
 * A postgres.js pool of its own that is thrown away when a step on it stalls: a connection left
 * pending by the bug above is never handed another query. The stalled queries go with it.
 */
export class ReplaceablePool {
  private sql: postgres.Sql | null = null;
  constructor(private readonly max = 5) {}

  get(): postgres.Sql {
    this.sql ??= createPg(env().DATABASE_URL, this.max);
    return this.sql;
  }

  /** `step(sql)` under the stall guard; on a stall, the pool it ran on is replaced. */
  async run<T>(step: (sql: postgres.Sql) => Promise<T>, then: string): Promise<T> {
    const sql = this.get();
    try {
      return await stallGuard(step(sql), then);
    } catch (err) {
      if (err instanceof StalledError && this.sql === sql) {
        this.sql = null;
        void sql.end({ timeout: 0 }).catch(() => undefined);
      }
      throw err;
    }
  }

  async end(): Promise<void> {
    const sql = this.sql;
    this.sql = null;
    await sql?.end({ timeout: 5 });
  }
}
