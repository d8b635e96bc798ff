// The connectors worker's loop (workers/connectors.ts): one import loop per connector source. The
// sources are reread from Postgres every CONNECTOR_DISCOVERY_MS, so a new source starts, and a paused,
// changed or removed one stops, without a restart. A loop that loses its broker reconnects with
// exponential backoff and jitter (seed 000: clients that failed together must not retry together),
// and writes what happened to connector_health. One loop per source across processes: a session
// advisory lock in Postgres, freed by the server the moment a killed worker's connection drops.
// A write with no answer (lib/db/stall-guard.ts) is given up: its batch stays on the broker, the
// loop reconnects with backoff and the pool the write ran on is replaced.
import { setTimeout as sleep } from 'node:timers/promises';
import { pg } from '@/lib/db';
import { openLockedRuns } from '@/lib/db/advisory-locks';
import { ReplaceablePool, stallGuard } from '@/lib/db/stall-guard';
import { writeBudget, type WriteBudget } from '@/lib/admission';
import { recordDeadLetters, type NewDeadLetter, type RecordedDeadLetter, type SourcePolicy } from '@/lib/intake/record-dead-letters';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { connectorSourceOf, registeredConnectorKinds, type ConnectorSourceRow } from './index';
import { scrubSecrets, type ConnectorSecret } from './secrets';
import { ConnectorError, type HealthUpdate, type ImportSink } from './types';

export interface ConnectorSupervisorOptions {
  /** How often the sources are reread (default CONNECTOR_DISCOVERY_MS). */
  discoveryMs?: number;
  /** Reconnect backoff: base << failures, capped; half of it fixed, half jitter. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Only these source ids (tests running beside other connector sources). */
  only?: string[];
  /** The write budget the imports share with ingest, the sweeper and the indexer (default: the process's). */
  budget?: WriteBudget;
}

export interface ConnectorSupervisor {
  /** Source ids whose import runs in this process right now. */
  running(): string[];
  /** Stop every loop (each commits or leaves on the broker the batch in flight), then disconnect. */
  stop(): Promise<void>;
}

/** Advisory lock class of connector imports (the redrive runners use their own). */
export const CONNECTOR_LOCK_CLASS = 7_201_013;
/** Health rows are written at most this often per source while all is well. */
const HEALTH_WRITE_MS = 1_000;

type SourceRow = ConnectorSourceRow & { importPaused: boolean; version: string };

/** Reconnect delay after `failures` consecutive failures: half fixed, half random, so retries spread. */
export function reconnectDelay(failures: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 20));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** What a failure says on the source's health and in the log: never a credential. */
export function describeFailure(err: unknown, secret: ConnectorSecret | null): string {
  if (err instanceof ConnectorError || err instanceof AppError) return scrubSecrets(err.message, secret);
  const message = err instanceof Error ? err.message : String(err);
  return scrubSecrets(`unexpected error: ${message}`, secret);
}

/** connector_health writes of one source; failures to write are logged, never thrown into the import. */
function healthWriter(sourceId: string) {
  let lastWrite = 0;
  let pending: HealthUpdate | null = null;
  let timer: NodeJS.Timeout | null = null;
  const warn = (err: unknown) => log.warn({ err, sourceId }, 'connector health write failed');

  async function writeOk(update: HealthUpdate, imported: number): Promise<void> {
    lastWrite = Date.now();
    const sql = pg();
    const lag = update.lag === undefined ? null : update.lag;
    await sql`
      INSERT INTO connector_health (source_id, last_poll_at, last_success_at, imported_total, lag, consecutive_failures, updated_at)
      VALUES (${sourceId}::uuid, now(), now(), ${imported}, ${lag}, 0, now())
      ON CONFLICT (source_id) DO UPDATE SET last_poll_at = now(), last_success_at = now(),
        imported_total = connector_health.imported_total + EXCLUDED.imported_total,
        lag = ${update.lag === undefined ? sql`connector_health.lag` : sql`EXCLUDED.lag`},
        consecutive_failures = 0, updated_at = now()`;
  }

  return {
    /** A committed batch: counted at once (the figure people watch during an import). */
    async imported(n: number): Promise<void> {
      await writeOk({}, n).catch(warn);
    },
    /** A successful poll; coalesced to one write per HEALTH_WRITE_MS. */
    ok(update: HealthUpdate = {}): void {
      pending = { ...pending, ...update };
      if (timer) return;
      const wait = Math.max(0, lastWrite + HEALTH_WRITE_MS - Date.now());
      timer = setTimeout(() => {
        timer = null;
        const u = pending;
        pending = null;
        if (u) void writeOk(u, 0).catch(warn);
      }, wait);
      timer.unref();
    },
    async failed(message: string): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = null;
      // Guarded: the loop awaits it before its backoff, and the shared pool may hold a hung connection.
      await stallGuard(
        pg()`
        INSERT INTO connector_health (source_id, last_poll_at, last_error, last_error_at, consecutive_failures, updated_at)
        VALUES (${sourceId}::uuid, now(), ${message}, now(), 1, now())
        ON CONFLICT (source_id) DO UPDATE SET last_poll_at = now(), last_error = EXCLUDED.last_error, last_error_at = now(),
          consecutive_failures = connector_health.consecutive_failures + 1, updated_at = now()`,
        'the health row waits',
      ).catch(warn);
    },
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      const u = pending;
      pending = null;
      if (u) await stallGuard(writeOk(u, 0), 'the health row waits').catch(warn);
    },
  };
}

/**
 * An import's write under a share of the write budget. While the budget is spent it waits, the batch
 * unacknowledged on the broker and nothing more pulled (the loop is in here); aborted meanwhile, it
 * rejects without writing and the connector leaves the batch on the broker.
 */
export async function recordAdmitted(
  budget: WriteBudget,
  policy: SourcePolicy,
  batch: NewDeadLetter[],
  writes: ReplaceablePool,
  signal: AbortSignal,
): Promise<RecordedDeadLetter[]> {
  const done = await budget.run('connectors', () => writes.run((sql) => recordDeadLetters(policy, batch, { sql }), 'the batch stays on the broker'), {
    signal,
  });
  if (!done) throw new ConnectorError('unreachable', 'Stopped while waiting for write budget; the batch stays on the broker');
  return done.value;
}

async function runImportLoop(
  row: SourceRow,
  signal: AbortSignal,
  o: Required<Omit<ConnectorSupervisorOptions, 'only'>>,
  writes: ReplaceablePool,
): Promise<void> {
  const health = healthWriter(row.id);
  let failures = 0;
  while (!signal.aborted) {
    let secret: ConnectorSecret | null = null;
    try {
      const { connector, source } = connectorSourceOf(row);
      secret = source.secret;
      const policy = { id: source.id, retentionSeconds: source.retentionSeconds };
      const sink: ImportSink = {
        async record(batch) {
          const recorded = await recordAdmitted(o.budget, policy, batch, writes, signal);
          failures = 0;
          // Not awaited: the acknowledgement waits for the commit only, never for the health figure.
          void health.imported(recorded.filter((r) => r.created).length);
          return recorded;
        },
        health(update) {
          failures = 0;
          health.ok(update);
        },
      };
      log.info({ source: row.name, kind: row.kind }, 'connector import starting');
      await connector.openImport(source, sink, signal);
      if (signal.aborted) break;
      throw new ConnectorError('unreachable', 'The broker closed the connection');
    } catch (err) {
      if (signal.aborted) {
        log.warn({ source: row.name, error: describeFailure(err, secret) }, 'connector import failed while stopping');
        break;
      }
      failures++;
      const message = describeFailure(err, secret);
      await health.failed(message);
      const delay = reconnectDelay(failures, o.backoffBaseMs, o.backoffCapMs);
      log.warn({ source: row.name, kind: row.kind, error: message, failures, retryInMs: delay }, 'connector import failed; reconnecting after backoff');
      await sleep(delay, undefined, { signal }).catch(() => undefined);
    }
  }
  await health.flush();
  log.info({ source: row.name }, 'connector import stopped');
}

export async function startConnectorSupervisor(options: ConnectorSupervisorOptions = {}): Promise<ConnectorSupervisor> {
  const o = {
    discoveryMs: options.discoveryMs ?? env().CONNECTOR_DISCOVERY_MS,
    backoffBaseMs: options.backoffBaseMs ?? 1_000,
    backoffCapMs: options.backoffCapMs ?? 60_000,
    budget: options.budget ?? writeBudget(),
  };
  const kinds = registeredConnectorKinds();
  // One loop per source across processes; the version is the source's as the loop started.
  const loops = await openLockedRuns<{ version: string }>(CONNECTOR_LOCK_CLASS);
  // The imports' writes, on a pool of their own: replaced when a write stalls.
  const writes = new ReplaceablePool();
  let stopping = false;

  const start = (row: SourceRow) =>
    loops.start(
      row.id,
      { version: row.version },
      (signal) =>
        runImportLoop(row, signal, o, writes).catch((err: unknown) =>
          log.error({ err, source: row.name }, 'connector loop ended unexpectedly; the next discovery starts it again'),
        ),
      () => stopping,
    );

  async function discover(): Promise<void> {
    if (stopping) return;
    // The locks' session was replaced, so its locks are gone: every loop stops, and this discovery
    // takes the sources up again under new locks.
    const replaced = await loops.replaced();
    if (replaced) {
      log.warn(replaced, 'connector lock session was replaced; restarting imports');
      await loops.stopAll();
    }
    const sql = pg();
    const rows = await sql<SourceRow[]>`
      SELECT id, name, kind::text AS kind, connection, connection_secret AS "connectionSecret", import_paused AS "importPaused",
             retention_seconds AS "retentionSeconds", max_redrives AS "maxRedrives", updated_at::text AS version
      FROM sources WHERE kind::text = ANY(${kinds}::text[])
        ${options.only ? sql`AND id = ANY(${options.only}::uuid[])` : sql``}`;
    const wanted = new Map(rows.filter((r) => !r.importPaused).map((r) => [r.id, r]));
    // A paused, changed or removed source stops; a changed one starts again on a later discovery, once stopped.
    for (const [id, loop] of loops.running) {
      const row = wanted.get(id);
      if (!row || row.version !== loop.version) loop.stop.abort();
    }
    for (const row of wanted.values()) if (!loops.running.has(row.id) && !stopping) await start(row);
  }

  let discovering: Promise<void> = Promise.resolve();
  const tick = () => {
    discovering = discovering
      .then(() => stallGuard(discover(), 'the next tick looks again'))
      .catch((err: unknown) => log.warn({ err }, 'connector discovery failed; trying again on the next tick'));
  };
  tick();
  await discovering;
  const timer = setInterval(tick, o.discoveryMs);

  return {
    running: () => [...loops.running.keys()],
    async stop() {
      stopping = true;
      clearInterval(timer);
      await discovering;
      await loops.stopAll();
      await Promise.all([loops.end(), writes.end()]);
    },
  };
}
