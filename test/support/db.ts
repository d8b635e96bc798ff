// Test helpers on the real database. The audit table refuses TRUNCATE and DELETE by design, so
// resetting it in tests switches its guard triggers off for the reset, as a superuser could.
// Tombstones go too: ids restart, and a later test's dropped row would meet an earlier test's
// tombstone.
import { db } from '@/lib/db';

/** What a reset empties: these tables and every table whose foreign key reaches them. */
const RESET_TABLES = [
  'audit_events',
  'redrive_items',
  'redrive_tasks',
  'dead_letters',
  'dead_letter_tombstones',
  'search_backlog',
  'cluster_sources',
  'clusters',
  'alarm_events',
  'alarm_states',
  'dead_letter_rollups',
  'source_snapshots',
  'webhook_deliveries',
  'webhooks',
  'api_tokens',
  'user_sessions',
  'users',
  'sources',
  'teams',
  'settings',
  'worker_heartbeats',
];

// The reset leaves the database as `TRUNCATE <RESET_TABLES> RESTART IDENTITY CASCADE` (with the
// audit table's triggers off) would, in one round trip, without its cost: a TRUNCATE gives each
// table and index a new file, some 150 of them, which took 0.3–1.5 s a test on the shared 2-core
// machine; the few rows a test leaves are deleted in milliseconds. Step by step, as TRUNCATE:
// the tables are locked as it locks them (a straggler's transaction is waited for); their rows are
// deleted with the triggers and foreign-key checks off (session_replication_role, as TRUNCATE fires
// no row trigger); then what their TRUNCATE triggers do is done, statement by statement from the
// trigger's own body (a body that does anything but DELETE FROM fails the reset); last, the
// sequences the tables own restart. A role that is not a superuser (it may not turn triggers off
// that way) gets the TRUNCATE itself.
const RESET = `DO $reset$
DECLARE
  listed regclass[] := ARRAY[${RESET_TABLES.map((t) => `'${t}'`).join(', ')}]::regclass[];
  tables regclass[];
  trigger record;
  statement text[];
  body text;
  rest text;
BEGIN
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER TABLE audit_events DISABLE TRIGGER USER;
    EXECUTE format('TRUNCATE %s RESTART IDENTITY CASCADE', array_to_string(listed, ', '));
    ALTER TABLE audit_events ENABLE TRIGGER USER;
    RETURN;
  END IF;
  WITH RECURSIVE reached(rel) AS (
    SELECT unnest(listed)
    UNION
    SELECT c.conrelid::regclass FROM pg_constraint c JOIN reached ON c.confrelid = reached.rel
    WHERE c.contype = 'f' AND c.conparentid = 0
  )
  SELECT array_agg(rel ORDER BY rel::text) INTO tables FROM reached JOIN pg_class k ON k.oid = rel WHERE NOT k.relispartition;
  EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', array_to_string(tables, ', '));

  PERFORM set_config('session_replication_role', 'replica', true);
  FOR i IN 1 .. array_length(tables, 1) LOOP
    EXECUTE format('DELETE FROM %s', tables[i]);
  END LOOP;
  PERFORM set_config('session_replication_role', 'origin', true);

  FOR trigger IN
    SELECT t.tgname, p.prosrc FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
    WHERE NOT t.tgisinternal AND t.tgenabled IN ('O', 'A') AND t.tgtype & 32 <> 0
      AND t.tgrelid <> 'audit_events'::regclass
      AND t.tgrelid IN (SELECT unnest(tables) UNION SELECT inhrelid FROM pg_inherits WHERE inhparent = ANY (tables))
    ORDER BY t.tgname
  LOOP
    body := regexp_replace(trigger.prosrc, '--[^\\n]*', '', 'g');
    rest := regexp_replace(body, 'DELETE FROM "?[a-z0-9_]+"?\\s*;|RETURN NULL\\s*;|\\mBEGIN\\M|\\mEND\\M', '', 'gi');
    IF btrim(rest, E' \\t\\n\\r;') <> '' THEN
      RAISE EXCEPTION 'resetDatabase: the TRUNCATE trigger % does more than DELETE FROM; test/support/db.ts must do it too', trigger.tgname;
    END IF;
    FOR statement IN SELECT regexp_matches(body, 'DELETE FROM "?([a-z0-9_]+)"?\\s*;', 'gi') LOOP
      EXECUTE format('DELETE FROM %I', statement[1]);
    END LOOP;
  END LOOP;

  PERFORM setval(s.seqrelid, s.seqstart, false)
  FROM pg_sequence s JOIN pg_depend d ON d.objid = s.seqrelid AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass
  WHERE d.deptype IN ('a', 'i') AND d.refobjid = ANY (tables);
END
$reset$`;

export async function resetDatabase(): Promise<void> {
  await db().$executeRawUnsafe(RESET);
}

/**
 * The partitions of dead_letters (and detached months) now, to put back with restorePartitions:
 * the test files of one run share a database, and a month one file created would be there for the
 * next (its rows gone with the reset, the partition not).
 */
export async function partitionNames(): Promise<Set<string>> {
  const rows = await db().$queryRaw<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ~ '^dead_letters_'`;
  return new Set(rows.map((r) => r.name));
}

/** Drop the months created since `before` (partitionNames), attached or left detached. */
export async function restorePartitions(before: Set<string>): Promise<void> {
  for (const name of await partitionNames()) {
    if (!before.has(name)) await db().$executeRawUnsafe(`DROP TABLE "${name.replaceAll('"', '""')}"`);
  }
}
