// The ingest path's own postgres.js pool, with short timeouts: when Postgres is down or stuck, a
// forwarder gets 503 + Retry-After within seconds instead of a hanging request (it will retry; the
// batch is idempotent). The app's shared pool keeps longer limits for exports and bulk decisions.
import postgres from 'postgres';
import { withNoDelay } from '@/lib/db';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';

const g = globalThis as unknown as { __triageIngestSql?: postgres.Sql };

export const INGEST_RETRY_AFTER_SECONDS = 5;

export function createIngestSql(url = env().DATABASE_URL): postgres.Sql {
  return postgres(
    url,
    withNoDelay({
      max: 5,
      connect_timeout: 3,
      idle_timeout: 60,
      onnotice: () => {},
      types: { bigint: postgres.BigInt },
      // Sent as startup parameters: every statement and lock wait on this pool is bounded.
      connection: { statement_timeout: 15_000, lock_timeout: 5_000, idle_in_transaction_session_timeout: 20_000 },
    }),
  );
}

export function ingestSql(): postgres.Sql {
  g.__triageIngestSql ??= createIngestSql();
  return g.__triageIngestSql;
}

export async function closeIngestSql(): Promise<void> {
  await g.__triageIngestSql?.end({ timeout: 5 });
  g.__triageIngestSql = undefined;
}

const CONNECTION_CODES = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
]);
// Postgres SQLSTATEs that mean "not now": connection exceptions (08…), shutdown and startup (57P0…),
// too many connections, statement or lock timeouts, serialization and deadlock retries.
const TRANSIENT_SQLSTATE = /^(08|57P0|53300|57014|55P03|40001|40P01)/;

/** A database failure that a retry may fix, as 503 + Retry-After; anything else is rethrown as is. */
export function unavailableIfTransient(e: unknown): unknown {
  const err = e as { code?: unknown; errno?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  if (CONNECTION_CODES.has(code) || TRANSIENT_SQLSTATE.test(code) || (e instanceof AggregateError && e.errors.some((x) => unavailableIfTransient(x) !== x))) {
    log.warn({ err: e, code }, 'ingest: database unavailable, answering 503');
    return new AppError('unavailable', 'The database is unavailable; retry later (the batch is idempotent)', undefined, {
      'Retry-After': String(INGEST_RETRY_AFTER_SECONDS),
    });
  }
  return e;
}
