// Prisma (through the pg driver adapter) and postgres.js (`pg()`): which one a module uses is the
// rule in lib/db/README.md. One pool each per process, reused across Next's hot reloads.
import net from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import postgres from 'postgres';
import { PrismaClient } from '@/generated/prisma/client';
import { env } from '@/lib/env';

export type Db = PrismaClient;
export type Tx = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

const g = globalThis as unknown as { __triageDb?: PrismaClient; __triageSql?: postgres.Sql; __triageReplicaSql?: postgres.Sql; __triageDbWork?: DbWork };

/** What this process's sessions do: serve requests (the app, the CLI), or a worker's work, or bulk work. */
export type DbWork = 'request' | 'worker' | 'bulk';

/**
 * A worker entry point calls this first: every Postgres session the process opens after it carries
 * a statement timeout and an idle-in-transaction timeout (lib/env.ts), so a handler's query gets an
 * error, not a hang, and a stalled transaction does not hold its locks for good.
 */
export function setWorkerTimeouts(work: Exclude<DbWork, 'request'>): void {
  if (g.__triageDb || g.__triageSql) throw new Error('setWorkerTimeouts must run before the first query: the open pools would keep no timeout');
  g.__triageDbWork = work;
}

/** Session parameters for this process's work, sent at connect (pg and postgres.js both take them so). */
export function sessionTimeouts(): { statement_timeout?: number; idle_in_transaction_session_timeout?: number } {
  const work = g.__triageDbWork ?? 'request';
  if (work === 'request') return {};
  const e = env();
  return {
    statement_timeout: work === 'bulk' ? e.BULK_STATEMENT_TIMEOUT_MS : e.WORKER_STATEMENT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: e.WORKER_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  };
}

export function createDb(url = env().DATABASE_URL, max = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max, connectionTimeoutMillis: 5_000, ...sessionTimeouts() }) });
}

export function db(): PrismaClient {
  g.__triageDb ??= createDb();
  return g.__triageDb;
}

/**
 * postgres.js options with `socket: noDelaySocket` (a documented option its types leave out): its own TCP sockets keep Nagle's algorithm on, and a query written
 * right after a COPY then waits for the server's delayed ACK (measured: 40 ms per ingest batch, a
 * third of its time). Unix-socket paths are passed through.
 */
export function withNoDelay<O extends object>(options: O): O {
  return Object.assign(options, { socket: noDelaySocket });
}

/**
 * The socket is handed over at once, still connecting: postgres.js then sees its 'error' and
 * 'close' itself, as with its own sockets, and puts the connection back in its pool to retry. (It
 * used to be handed over only once connected, and a refused or timed-out connect rejected instead:
 * postgres.js then left that connection "connecting" for good, with the queries queued on it
 * pending forever, so a pool that met a Postgres restart hung for the life of the process.)
 * postgres.js's own connect_timeout covers the connect: its timer starts when it gets the socket.
 */
function noDelaySocket(o: { host: string[]; port: number[]; path?: string | false }): net.Socket {
  const socket = o.path ? net.connect(o.path) : net.connect({ host: o.host[0], port: o.port[0] ?? 5432, noDelay: true });
  // An error emitted before postgres.js has attached its listeners must not crash the process;
  // the 'close' that follows it still reaches postgres.js.
  socket.on('error', () => {});
  return socket;
}

/** A postgres.js pool as pg()'s: this process's session timeouts, bigints as BigInt. */
export function createPg(url = env().DATABASE_URL, max = 5, onclose?: () => void): postgres.Sql {
  return postgres(
    url,
    withNoDelay({
      max,
      connect_timeout: 5,
      onnotice: () => {},
      types: { bigint: postgres.BigInt },
      connection: sessionTimeouts(),
      ...(onclose ? { onclose } : {}),
    }),
  );
}

export function pg(): postgres.Sql {
  g.__triageSql ??= createPg();
  return g.__triageSql;
}

/**
 * The pool on DATABASE_REPLICA_URL (a streaming replica), for lib/db/replica.ts only: reads choose
 * it or pg() through readDb() there, which knows whether the replica is fit to answer. `onclose`
 * (a connection ended: the replica stopped or restarted) makes that check run again.
 */
export function replicaPg(onclose?: () => void): postgres.Sql {
  const url = env().DATABASE_REPLICA_URL;
  if (!url) throw new Error('DATABASE_REPLICA_URL is not set');
  g.__triageReplicaSql ??= createPg(url, 10, onclose);
  return g.__triageReplicaSql;
}

export async function closeDb(): Promise<void> {
  await Promise.all([g.__triageDb?.$disconnect(), g.__triageSql?.end({ timeout: 5 }), g.__triageReplicaSql?.end({ timeout: 5 })]);
  g.__triageDb = undefined;
  g.__triageSql = undefined;
  g.__triageReplicaSql = undefined;
}
