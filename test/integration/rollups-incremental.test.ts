// The rollups counted from the new rows only (dead_letter_rollup_pending): after any mix of writes
// they equal a full recount of dead_letters, a transaction that commits after a run with a lower id
// is counted by the next, and no row is counted twice.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { HOUR, MINUTE } from '@/lib/clock';
import { pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { computeRollups } from '@/lib/rollups/compute-rollups';
import { deadLetter, demoWorld } from './sla-fixtures';

const T0 = new Date('2026-03-02T09:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

/** A bulk load as a loader writes it (one statement, not through recordDeadLetters). */
const bulkInsert = (sql: ReturnType<typeof pg>, sourceId: string, n: number, tag: string, deadAt: Date) => sql`
  INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, receive_count, dead_at, payload, payload_size,
                            payload_sha256, content_type, headers, fingerprint, status, expires_at)
  SELECT ${sourceId}::uuid, ${tag} || '-' || g, (ARRAY['MaxReceives','Rejected']::"DeadLetterReason"[])[1 + g % 2], 'Error', 'failure', 1,
    ${deadAt}::timestamptz + make_interval(secs => g * 7), '\\x7b7d'::bytea, 2, md5(g::text) || md5(g::text), 'application/json', '{}',
    'fp', 'open', ${deadAt}::timestamptz + interval '14 days'
  FROM generate_series(1, ${n}) g`;

async function stored() {
  const sql = pg();
  const rollups = await sql<{ k: string; n: number }[]>`
    SELECT source_id || ' ' || to_char(minute AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' ' || reason AS k, count AS n
    FROM dead_letter_rollups WHERE count <> 0 ORDER BY 1`;
  const recount = await sql<{ k: string; n: number }[]>`
    SELECT source_id || ' ' || to_char(date_trunc('minute', dead_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' ' || reason AS k, count(*)::int AS n
    FROM dead_letters GROUP BY 1 ORDER BY 1`;
  const totals = await sql<{ source_id: string; totals: Record<string, number> }[]>`SELECT source_id, totals FROM source_stats ORDER BY 1`;
  const recountTotals = await sql<{ source_id: string; totals: Record<string, number> }[]>`
    SELECT source_id, jsonb_object_agg(reason, n) AS totals FROM (SELECT source_id, reason, count(*)::int AS n FROM dead_letters GROUP BY 1, 2) t
    GROUP BY 1 ORDER BY 1`;
  return { rollups: [...rollups], recount: [...recount], totals: [...totals], recountTotals: [...recountTotals] };
}

describe('incremental rollups', () => {
  freshDatabase();

  it('equal a full recount after ingests, bulk loads, late arrivals and decisions, and count a late commit once', async () => {
    const { sources } = await demoWorld();
    const sql = pg();
    await recordDeadLetters(
      sources.orders,
      [0, 10, 70].map((s) => deadLetter({ deadAt: at(s * 1000) })),
    );
    await bulkInsert(sql, sources.payments.id, 500, 'bulk', at(-2 * HOUR));
    expect(await computeRollups(T0)).toMatchObject({ deadLetters: 503 });

    // A transaction that took its ids before the next rows and commits after the run that follows them.
    const late = sql.reserve();
    const lateConn = await late;
    await lateConn`BEGIN`;
    await bulkInsert(lateConn, sources.orders.id, 40, 'late', at(-3 * HOUR));
    await recordDeadLetters(sources.orders, [deadLetter({ deadAt: at(-3 * HOUR + 5_000), reason: 'Rejected' }), deadLetter({ deadAt: at(MINUTE) })]);
    await bulkInsert(sql, sources.notifications.id, 100, 'more', at(-2 * HOUR)); // the same minutes as before: added to, not recounted
    expect(await computeRollups(T0)).toMatchObject({ deadLetters: 102 });
    await lateConn`COMMIT`;
    lateConn.release();

    // Decisions change no rollup (a dead letter of any status still arrived).
    await sql`UPDATE dead_letters SET status = 'archived' WHERE id IN (SELECT id FROM dead_letters ORDER BY id LIMIT 50)`;
    expect(await computeRollups(T0)).toMatchObject({ deadLetters: 40 });
    expect(await computeRollups(T0)).toMatchObject({ deadLetters: 0, buckets: 0 });
    const s = await stored();
    expect(s.rollups.length).toBeGreaterThan(50);
    expect(s.rollups).toEqual(s.recount);
    expect(s.totals).toEqual(s.recountTotals);
    expect(await sql`SELECT 1 FROM dead_letter_rollup_pending`).toHaveLength(0);
  });

  it('forget the pending counts of emptied dead letters', async () => {
    const { sources } = await demoWorld();
    await bulkInsert(pg(), sources.orders.id, 10, 'gone', at(-HOUR));
    await pg()`TRUNCATE dead_letters CASCADE`;
    expect(await computeRollups(T0)).toMatchObject({ deadLetters: 0 });
  });
});
