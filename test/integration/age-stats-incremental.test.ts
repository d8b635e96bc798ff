// The age stats refreshed from dead_letter_open_minutes (whole minutes plus boundary reads) equal
// the one pass over every open dead letter, after inserts, decisions, a redrive that reopens,
// expiry changes, deletes, a deadline change and a transaction still open during the refresh, at
// moments whose thresholds fall inside minutes full of dead letters.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { DAY, HOUR, MINUTE } from '@/lib/clock';
import { pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { computeAgeStats, refreshAgeStats, type AgeStats } from '@/lib/sla/age-stats';
import { deadLetter, demoWorld } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');
/** Where the thresholds fall at T0 (deadline 7 d and 2 d): dead letters are packed around each. */
const EDGES = [HOUR, 6 * HOUR, DAY, 3 * DAY, 7 * DAY, 14 * DAY, 6 * DAY, 2 * DAY];

const byId = (a: AgeStats[]) => [...a].sort((x, y) => x.sourceId.localeCompare(y.sourceId)).map((s) => ({ ...s, evaluatedAt: null }));

async function expectExact(now: Date) {
  const refreshed = await refreshAgeStats(now);
  expect(byId(refreshed)).toEqual(byId(await computeAgeStats(now)));
  return refreshed;
}

/** n dead letters dead within ±40 s of `around`, expiring and enqueued at varied offsets. */
const bulk = (sourceId: string, n: number, around: Date, tag: string) => pg()`
  INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, receive_count, dead_at, enqueued_at, payload, payload_size,
                            payload_sha256, content_type, headers, fingerprint, status, expires_at)
  SELECT ${sourceId}::uuid, ${tag} || '-' || g, 'MaxReceives', 'Error', 'failure', 1, t.dead_at,
    CASE WHEN g % 3 = 0 THEN NULL ELSE t.dead_at - make_interval(secs => (g * 104729 % 259200000) / 1000.0) END,
    '\\x7b7d'::bytea, 2, md5(g::text) || md5(g::text), 'application/json', '{}', 'fp', 'open',
    t.dead_at + (ARRAY[interval '14 days', interval '3 days', interval '8 days', interval '7 days'])[1 + g % 4]
      + make_interval(secs => (g % 1000) / 1000.0)
  FROM generate_series(1, ${n}) g
  CROSS JOIN LATERAL (SELECT ${around}::timestamptz + make_interval(secs => ((g * 7919) % 80000 - 40000) / 1000.0) AS dead_at) t`;

describe('incremental age stats', () => {
  freshDatabase();

  it('equal the full pass after a mix of writes, at thresholds inside busy minutes', async () => {
    const { sources } = await demoWorld();
    const sql = pg();
    await sql`UPDATE sources SET age_deadline_seconds = ${(2 * DAY) / 1000} WHERE id = ${sources.payments.id}::uuid`;
    for (const [i, e] of EDGES.entries()) {
      await bulk(sources.orders.id, 300, new Date(T0.getTime() - e), `o${i}`);
      await bulk(sources.payments.id, 200, new Date(T0.getTime() - e + 20_000), `p${i}`);
    }
    // The expiry warning's edge (3 days ahead): dead 11 days ago with a 14-day life.
    await bulk(sources.notifications.id, 400, new Date(T0.getTime() - 11 * DAY), 'n');
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: new Date(T0.getTime() - 2 * MINUTE), enqueuedAt: new Date(T0.getTime() - 30 * DAY) })]);
    await expectExact(T0);
    await expectExact(new Date(T0.getTime() + 12_345));

    // Decisions, a reopening redrive, expiry changes, deletes and a no-op cluster move.
    await sql`UPDATE dead_letters SET status = 'archived' WHERE id % 5 = 0`;
    await sql`UPDATE dead_letters SET status = 'redriven' WHERE id % 7 = 0 AND status = 'open'`;
    await sql`UPDATE dead_letters SET status = 'open' WHERE id % 14 = 0`;
    await sql`UPDATE dead_letters SET expires_at = expires_at + interval '1 day 17 seconds' WHERE id % 3 = 1 AND source_id = ${sources.orders.id}::uuid`;
    await sql`UPDATE dead_letters SET error_type = 'Other' WHERE id % 2 = 0`;
    await sql`DELETE FROM dead_letters WHERE id % 11 = 0`;
    const [before] = await expectExact(new Date(T0.getTime() - 31_000)).then((r) => r.filter((s) => s.sourceId === sources.orders.id));
    expect(before!.openCount).toBeGreaterThan(1000);

    // A transaction still open while the refresh runs: counted by the refresh after it commits.
    const open = await sql.reserve();
    await open`BEGIN`;
    await open`UPDATE dead_letters SET status = 'discarded' WHERE id % 13 = 0 AND status = 'open'`;
    await open`INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, receive_count, dead_at, payload, payload_size,
                 payload_sha256, content_type, headers, fingerprint, status, expires_at)
               VALUES (${sources.orders.id}::uuid, 'late', 'Rejected', 'E', 'x', 1, ${new Date(T0.getTime() - HOUR + 1)}, '\\x7b7d'::bytea, 2,
                 md5('late') || md5('late'), 'application/json', '{}', 'fp', 'open', ${new Date(T0.getTime() + DAY)})`;
    await expectExact(T0);
    await open`COMMIT`;
    open.release();
    await sql`UPDATE sources SET age_deadline_seconds = ${DAY / 1000} WHERE id = ${sources.notifications.id}::uuid`;
    for (const offset of [0, 29_999, 59_999, -HOUR + 7]) await expectExact(new Date(T0.getTime() + offset));

    // Everything decided: the sources are empty, as the full pass says.
    await sql`UPDATE dead_letters SET status = 'archived'`;
    const empty = await expectExact(T0);
    expect(empty.every((s) => s.openCount === 0 && s.nextExpiryAt === null)).toBe(true);
    expect(await sql`SELECT 1 FROM dead_letter_open_minutes`).toHaveLength(0);
  });
});
