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
