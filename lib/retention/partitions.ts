// Monthly partitions of dead_letters (by dead_at, UTC months; docs/design.md "Partitioning"):
// created ahead by the maintenance worker (and for any month the DEFAULT partition holds rows for),
// and dropped whole by retention once nothing in them is kept. The row-by-row sweep (sweep-expired.ts) still expires open rows one by one: it works at the
// edges, on the months that are not all expired yet.
//
// A partition is kept while any of its rows is undecided (open, redriving), archived (kept on
// purpose, with its payload), not past its expiry yet, or in a redrive task that has not finished.
// Otherwise its rows are all decided tombstones (expired, discarded, redriven) past retention: they
// are copied into the compact dead_letter_tombstones (what the audit trail and redrive tasks refer to),
// their search text, edited versions and backlog entries are deleted, and the partition is dropped:
// detached first (after a re-check under lock), then the rest in one transaction with the audit
// event, so a crash in between leaves a detached table that the next run finishes, never a trail
// that says "dropped" of rows still listed. Their keys stay in dead_letter_keys, so a late retry of one is still a repeat. Cluster
// counts are cumulative and open counts leave with decisions, so neither changes; the SLA board
// counts open dead letters only, which a dropped partition has none of.
import { append } from '@/lib/audit';
import { auditActor, SYSTEM } from '@/lib/auth';
import { systemClock, type Clock } from '@/lib/clock';
import { db } from '@/lib/db';
import { env } from '@/lib/env';
import { log } from '@/lib/log';

/** Months created ahead of the current one. */
export const MONTHS_AHEAD = 2;
const RETENTION_ACTOR = { ...SYSTEM, label: 'retention' };
/** DDL waits this long for its lock, then gives up until the next run (it must not queue the app behind it). */
const LOCK_TIMEOUT = '3s';

export interface Partition {
  name: string;
  /** null: MINVALUE (the partition a migrated table became) or the DEFAULT partition. */
  from: Date | null;
  /** null: the DEFAULT partition. */
  to: Date | null;
  isDefault: boolean;
}

const monthStart = (t: Date) => new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1));
const addMonths = (t: Date, n: number) => new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + n, 1));
const yyyymm = (t: Date) => `${t.getUTCFullYear()}${String(t.getUTCMonth() + 1).padStart(2, '0')}`;
const quoteIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** The partitions of dead_letters, with their bounds, oldest first (the default last). */
export async function listPartitions(): Promise<Partition[]> {
  const rows = await db().$queryRaw<{ name: string; is_default: boolean; from_ms: number | null; to_ms: number | null }[]>`
    SELECT c.relname AS name, b.bound = 'DEFAULT' AS is_default,
           CASE WHEN m[1] IS NULL OR m[1] = 'MINVALUE' THEN NULL ELSE extract(epoch FROM btrim(m[1], '''')::timestamptz) * 1000 END::float8 AS from_ms,
           CASE WHEN m[2] IS NULL OR m[2] = 'MAXVALUE' THEN NULL ELSE extract(epoch FROM btrim(m[2], '''')::timestamptz) * 1000 END::float8 AS to_ms
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
    LEFT JOIN LATERAL regexp_match(b.bound, 'FROM \\((MINVALUE|''[^'']*'')\\) TO \\((MAXVALUE|''[^'']*'')\\)') m ON true
    WHERE i.inhparent = 'dead_letters'::regclass`;
  return rows
    .map((r) => ({
      name: r.name,
      from: r.from_ms == null ? null : new Date(r.from_ms),
      to: r.to_ms == null ? null : new Date(r.to_ms),
      isDefault: r.is_default,
    }))
    .sort((a, b) => (a.isDefault ? 1 : b.isDefault ? -1 : (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity)));
}

/**
 * Create the partitions of the current month and the next MONTHS_AHEAD months that do not exist
 * yet (a month a partition already covers in part starts or ends where that one does), and of every
 * other month the DEFAULT partition holds rows for. Rows the DEFAULT partition holds for such a
 * month are moved into it. Returns the names created.
 *
 * The months of the DEFAULT's rows: a dead letter that died long ago (ingested late, a connector's
 * old failure) lands there when its month has no partition (never made, or dropped by retention),
 * and retention drops months, never the DEFAULT; in a month of its own it goes by partition.
 */
export async function ensurePartitions(clock: Clock = systemClock, ahead = MONTHS_AHEAD): Promise<string[]> {
  const created: string[] = [];
  const first = monthStart(clock.now());
  const months = Array.from({ length: ahead + 1 }, (_, n) => addMonths(first, n));
  for (const month of await monthsInDefault()) if (!months.some((m) => m.getTime() === month.getTime())) months.push(month);
  for (const month of months) {
    const name = await createMonth(month, addMonths(month, 1));
    if (name) created.push(name);
  }
  return created;
}

/** The UTC months the DEFAULT partition holds rows for (a scan of it: it holds strays only, each run takes them out). */
async function monthsInDefault(): Promise<Date[]> {
  const rows = await db().$queryRaw<{ m: Date }[]>`
    SELECT DISTINCT date_trunc('month', dead_at, 'UTC') AS m FROM dead_letters_default ORDER BY m`;
  return rows.map((r) => r.m);
}

/** Create [from, to) less what existing partitions cover of it; null when nothing is left to create. */
async function createMonth(monthFrom: Date, monthTo: Date): Promise<string | null> {
  const ranges = (await listPartitions()).filter((p) => !p.isDefault);
  let from = monthFrom;
  let to = monthTo;
  for (const p of ranges) {
    const pFrom = p.from?.getTime() ?? -Infinity;
    const pTo = p.to?.getTime() ?? Infinity;
    if (pFrom <= from.getTime() && pTo > from.getTime()) from = new Date(Math.min(pTo, monthTo.getTime()));
  }
  if (from >= to) return null;
  for (const p of ranges) {
    const pFrom = p.from?.getTime() ?? -Infinity;
    if (pFrom > from.getTime() && pFrom < to.getTime()) to = new Date(pFrom);
  }
  // A month a crashed drop left detached keeps its name until the drop is finished (after this, in maintainPartitions).
  const taken = new Set([...ranges.map((p) => p.name), ...(await detachedLeftovers())]);
  let name = `dead_letters_p${yyyymm(monthFrom)}`;
  if (taken.has(name)) name = `${name}_${from.getTime()}`;
  const table = quoteIdent(name);
  try {
    await attachMonth(table, from, to);
  } catch (err) {
    // A long reader of the DEFAULT partition holds the lock: the next run creates the month instead
    // of failing the whole maintenance job (rows meanwhile land in the DEFAULT, which it then moves).
    if (!isLockTimeout(err)) throw err;
    log.warn({ partition: name }, 'partition not created: lock timeout; the next run tries again');
    return null;
  }
  return name;
}

async function attachMonth(table: string, from: Date, to: Date): Promise<void> {
  await db().$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    // Created apart, then attached: ATTACH takes a weaker lock on dead_letters than CREATE … PARTITION OF.
    await tx.$executeRawUnsafe(`CREATE TABLE ${table} (LIKE dead_letters INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)`);
    // Rows that landed in the default partition for this range move into it (ATTACH would refuse otherwise).
    await tx.$executeRawUnsafe(
      `WITH moved AS (DELETE FROM dead_letters_default WHERE dead_at >= $1 AND dead_at < $2 RETURNING *)
       INSERT INTO ${table} SELECT * FROM moved`,
      from,
      to,
    );
    await tx.$executeRawUnsafe(`ALTER TABLE dead_letters ATTACH PARTITION ${table} FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`);
  });
}

export interface DroppedPartition {
  name: string;
  rows: number;
}

/**
 * Drop the partitions that end before now and keep nothing (see the top of this file), oldest
 * first, after moving their tombstones into dead_letter_tombstones; one audit event per source.
 */
export async function dropExpiredPartitions(clock: Clock = systemClock): Promise<DroppedPartition[]> {
  const now = clock.now();
  const dropped: DroppedPartition[] = [];
  for (const name of await detachedLeftovers()) dropped.push({ name, rows: await finishDrop(name, boundsOfName(name), now) });
  for (const p of await listPartitions()) {
    if (p.isDefault || !p.to || p.to > now) continue;
    const rows = await dropIfExpired(p, now);
    if (rows !== null) dropped.push({ name: p.name, rows });
  }
  return dropped;
}

/** What keeps a partition (its rows as `d`): see the top of this file. */
const keeps = (table: string) => `
  EXISTS (SELECT 1 FROM ${table} d WHERE d.status IN ('open', 'redriving', 'archived') OR d.expires_at > $1)
  OR EXISTS (SELECT 1 FROM ${table} d JOIN redrive_items i ON i.dead_letter_id = d.id JOIN redrive_tasks t ON t.id = i.task_id
             WHERE t.status IN ('pending_approval', 'queued', 'running', 'paused'))`;

const isLockTimeout = (err: unknown) => (err as { code?: string }).code === '55P03' || String(err).includes('55P03') || String(err).includes('lock timeout');

/** The number of rows dropped, or null when the partition is kept (or its lock was not had in time). */
async function dropIfExpired(p: Partition, now: Date): Promise<number | null> {
  const table = quoteIdent(p.name);
  const [{ kept } = { kept: true }] = await db().$queryRawUnsafe<{ kept: boolean }[]>(`SELECT (${keeps(table)}) AS kept`, now);
  if (kept) return null;
  try {
    // 1. Under a lock that stops writes to this partition (reads go on): re-check, then detach, a
    //    short ACCESS EXCLUSIVE on dead_letters. From here no page, selection or task sees its rows.
    const detached = await db().$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await tx.$executeRawUnsafe(`LOCK TABLE ${table} IN SHARE ROW EXCLUSIVE MODE`);
      const [again] = await tx.$queryRawUnsafe<{ kept: boolean }[]>(`SELECT (${keeps(table)}) AS kept`, now);
      if (again?.kept) return false;
      await tx.$executeRawUnsafe(`ALTER TABLE dead_letters DETACH PARTITION ${table}`);
      return true;
    });
    if (!detached) return null;
  } catch (err) {
    // A lock not had within LOCK_TIMEOUT: the next run tries again.
    if (isLockTimeout(err)) return null;
    throw err;
  }
  return finishDrop(p.name, { from: p.from, to: p.to }, now);
}

/**
 * 2. The detached table's rows become tombstones, what hangs off them goes, one audit event per
 * source, and the table is dropped: one transaction, so the audit trail says "dropped" only of a
 * table that was. A crash before it commits leaves the detached table, which the next run finishes.
 */
async function finishDrop(name: string, bounds: { from: Date | null; to: Date | null }, now: Date): Promise<number> {
  const table = quoteIdent(name);
  // A month's rows are copied in this one transaction: millions of them take minutes, not Prisma's
  // default 5 s (which failed every run, leaving the month detached for good: storm bench, 1.4M rows).
  return db().$transaction(
    async (tx) => {
      const perSource = await tx.$queryRawUnsafe<{ source_id: string; team_id: string; n: number }[]>(
        `WITH kept AS (
         INSERT INTO dead_letter_tombstones (id, source_id, message_id, generation, redrive_count, reason, error_type, fingerprint, cluster_id, status,
                                             dead_at, expires_at, decided_at, decided_by_id, decision_reason, payload_size, payload_sha256, dropped_at)
         SELECT id, source_id, message_id, generation, redrive_count, reason, error_type, fingerprint, cluster_id, status,
                dead_at, expires_at, decided_at, decided_by_id, decision_reason, payload_size, payload_sha256, $1
         FROM ${table}
         ON CONFLICT (id) DO NOTHING
         RETURNING source_id)
       SELECT k.source_id::text AS source_id, s.team_id::text AS team_id, count(*)::int AS n
       FROM kept k JOIN sources s ON s.id = k.source_id GROUP BY k.source_id, s.team_id ORDER BY k.source_id`,
        now,
      );
      // What hangs off the rows goes with them; their keys stay (a late retry is still a repeat).
      // Edited versions go as they do when retention clears a payload (the versions' trigger).
      await tx.$executeRawUnsafe(`DELETE FROM dead_letter_search s USING ${table} d WHERE s.dead_letter_id = d.id`);
      await tx.$executeRawUnsafe(`DELETE FROM dead_letter_versions v USING ${table} d WHERE v.dead_letter_id = d.id`);
      await tx.$executeRawUnsafe(`DELETE FROM search_backlog b USING ${table} d WHERE b.dead_letter_id = d.id`);
      for (const s of perSource) {
        await append(tx, {
          actor: auditActor(RETENTION_ACTOR),
          action: 'deadletter.partition_drop',
          targetType: 'source',
          targetId: s.source_id,
          sourceId: s.source_id,
          teamId: s.team_id,
          selection: { partition: name, from: bounds.from?.toISOString() ?? null, to: bounds.to?.toISOString() ?? null },
          count: s.n,
          reason: 'retention: every dead letter of the partition was decided and past retention; tombstones kept in dead_letter_tombstones',
          result: `${s.n} moved to tombstones, partition dropped`,
        });
      }
      await tx.$executeRawUnsafe(`DROP TABLE ${table}`);
      return perSource.reduce((sum, s) => sum + s.n, 0);
    },
    { timeout: env().BULK_STATEMENT_TIMEOUT_MS },
  );
}

/** A month detached by an earlier run that did not get to drop it (named as createMonth names them). */
async function detachedLeftovers(): Promise<string[]> {
  const rows = await db().$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ~ '^dead_letters_p[0-9]{6}'
      AND NOT c.relispartition ORDER BY c.relname`;
  return rows.map((r) => r.name);
}

/** The month a leftover's name says (its bounds went with the detach). */
function boundsOfName(name: string): { from: Date | null; to: Date | null } {
  const m = /^dead_letters_p(\d{4})(\d{2})$/.exec(name);
  if (!m) return { from: null, to: null };
  const from = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
  return { from, to: addMonths(from, 1) };
}

/** How old the partitioned parent's statistics may get before maintenance analyzes it again. */
export const ANALYZE_PARENT_EVERY_MS = 6 * 60 * 60 * 1000;

/**
 * ANALYZE the partitioned parent when its statistics are missing, older than
 * ANALYZE_PARENT_EVERY_MS, or the set of partitions just changed. Autovacuum analyzes the
 * partitions but never a partitioned parent, and the planner's estimates for a query over the whole
 * table (joins above all) come from the parent's statistics: without them it guesses. Sampled
 * (default_statistics_target rows per column, not the whole table) and it takes only SHARE UPDATE
 * EXCLUSIVE, so reads and writes go on. Returns whether it ran.
 */
export async function analyzeParentIfStale(clock: Clock = systemClock, changed = false): Promise<boolean> {
  const [row] = await db().$queryRaw<{ at: Date | null }[]>`
    SELECT greatest(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relid = 'dead_letters'::regclass`;
  const at = row?.at ?? null;
  if (!changed && at && clock.now().getTime() - at.getTime() < ANALYZE_PARENT_EVERY_MS) return false;
  // PostgreSQL 15 has no ANALYZE ONLY: this samples each partition as well (each one a bounded sample).
  await db().$executeRawUnsafe('ANALYZE dead_letters');
  return true;
}

/** A partition is analyzed once this many rows plus STALE_FRACTION of its rows changed since its last ANALYZE (autovacuum's defaults). */
export const STALE_ROWS = 50;
export const STALE_FRACTION = 0.1;

/**
 * VACUUM (ANALYZE) each partition of dead_letters whose statistics are stale by autovacuum's own rule
 * (STALE_ROWS + STALE_FRACTION of its rows changed since its last analyze), most changed first.
 * Autovacuum does the same when it runs and keeps up; in a storm it may not (its workers are
 * throttled and busy vacuuming, or it is off), and a month's partition that grew from nothing
 * without statistics makes the planner take a source's first list page from the partial age index
 * and sort every row of the source: 0.1 ms became 0.9 s at 220k rows a source (storm bench).
 * VACUUM as well, not ANALYZE alone: it sets the visibility map of the pages the storm filled
 * (autovacuum's insert threshold would), without which the planner prices a source's index as a
 * heap fetch per row and takes a big source's first page from the status index instead, filtering
 * out every newer row of the other sources: 4.4 s a page behind 700k of them, 9 ms after a VACUUM
 * (storm bench). On an insert-only partition it visits only the pages not yet all-visible and
 * skips index cleanup. Both take only SHARE UPDATE EXCLUSIVE, so reads and writes go on. Returns
 * the partitions done.
 */
export async function analyzeStalePartitions(): Promise<string[]> {
  const stale = await db().$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid
    JOIN pg_stat_user_tables t ON t.relid = c.oid
    WHERE i.inhparent = 'dead_letters'::regclass
      AND t.n_mod_since_analyze > ${STALE_ROWS} + ${STALE_FRACTION}::float8 * greatest(c.reltuples, 0)
    ORDER BY t.n_mod_since_analyze DESC`;
  for (const { name } of stale) await db().$executeRawUnsafe(`VACUUM (ANALYZE) ${quoteIdent(name)}`);
  return stale.map((r) => r.name);
}

/**
 * The maintenance job: months ahead first (so no insert goes to the default), then what has
 * expired, then the parent's statistics when they are stale.
 */
export async function maintainPartitions(clock: Clock = systemClock): Promise<{ created: string[]; dropped: DroppedPartition[]; analyzed: boolean }> {
  const created = await ensurePartitions(clock);
  const dropped = await dropExpiredPartitions(clock);
  const analyzed = await analyzeParentIfStale(clock, created.length > 0 || dropped.length > 0);
  return { created, dropped, analyzed };
}
