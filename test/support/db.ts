// Test helpers on the real database. The audit table refuses TRUNCATE by design, so resetting it
// in tests switches its guard triggers off for that one statement, as a superuser could. Tombstones
// go too: ids restart, and a later test's dropped row would meet an earlier test's tombstone.
import { db } from '@/lib/db';

export async function resetDatabase(): Promise<void> {
  await db().$transaction([
    db().$executeRawUnsafe('ALTER TABLE audit_events DISABLE TRIGGER USER'),
    db().$executeRawUnsafe(
      `TRUNCATE audit_events, redrive_items, redrive_tasks, dead_letters, dead_letter_tombstones, search_backlog, cluster_sources, clusters, alarm_events, alarm_states,
       dead_letter_rollups, source_snapshots, webhook_deliveries, webhooks, api_tokens, user_sessions, users, sources, teams, settings, worker_heartbeats
       RESTART IDENTITY CASCADE`,
    ),
    db().$executeRawUnsafe('ALTER TABLE audit_events ENABLE TRIGGER USER'),
  ]);
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
