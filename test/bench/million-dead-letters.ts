// 1,000,000 dead letters for the list and export benchmarks, written by generate_series inside
// Postgres (not through the API): 2 teams, 10 sources, 200 clusters, statuses 70% open, ~150-byte
// JSON payloads, dead-letter times spread over two weeks. Indexes are dropped for the load and built
// after it, as a bulk loader would. Search text (dead_letter_search) is not written: only text search,
// not measured here, needs it.
import type postgres from 'postgres';
import { dropDeadLetterIndexes, noteLoadedErrorTypes } from './support';

export const MILLION = 1_000_000;
export const TEAMS = { commerce: '11111111-1111-4111-8111-111111111111', finance: '22222222-2222-4222-8222-222222222222' };
export const sourceId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
export const clusterId = (i: number) => `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;

/** `rows` dead letters (default 1,000,000), spread over the same two weeks whatever their number. */
export async function seedMillion(sql: postgres.Sql, rows = MILLION): Promise<void> {
  await sql`INSERT INTO teams (id, name) VALUES (${TEAMS.commerce}, 'commerce'), (${TEAMS.finance}, 'finance')`;
  await sql`INSERT INTO sources (id, name, team_id, updated_at)
            SELECT ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, 'source-' || i,
                   CASE WHEN i < 5 THEN ${TEAMS.commerce}::uuid ELSE ${TEAMS.finance}::uuid END, now()
            FROM generate_series(0, 9) i`;
  await sql`INSERT INTO clusters (id, fingerprint, template, error_type, count, open_count, first_seen, last_seen)
            SELECT ('00000000-0000-4000-9000-' || lpad(i::text, 12, '0'))::uuid, 'fp' || i, 'failed to process order <*>', 'Err' || (i % 20), 0, 0, now(), now()
            FROM generate_series(0, 199) i`;
  // Keep the table as the migrations leave it apart from its indexes: drop every index but the key, load, rebuild.
  const indexes = await dropDeadLetterIndexes(sql);
  await sql.unsafe(`SET maintenance_work_mem = '256MB'`);
  await sql.unsafe(`
    INSERT INTO dead_letters (source_id, message_id, reason, error_type, error_message, receive_count, dead_at, payload, payload_size,
                              payload_sha256, content_type, headers, fingerprint, cluster_id, status, expires_at)
    SELECT ('00000000-0000-4000-8000-' || lpad((g % 10)::text, 12, '0'))::uuid,
      'm-' || g,
      (ARRAY['MaxReceives','Rejected','Expired','KeyParked','RedriveLoop','Manual']::"DeadLetterReason"[])[1 + (g / 7) % 6],
      'Err' || ((g / 100) % 20),
      'failed to process order ' || g || ' for customer c-' || (g % 5000),
      3,
      now() - make_interval(secs => g * ${1.2 * (MILLION / rows)}),
      convert_to(t.txt, 'UTF8'), octet_length(t.txt), encode(sha256(convert_to(t.txt, 'UTF8')), 'hex'), 'application/json',
      '{"x-tenant":"acme"}',
      'fp' || ((g / 3) % 200), ('00000000-0000-4000-9000-' || lpad(((g / 3) % 200)::text, 12, '0'))::uuid,
      (CASE WHEN (g / 10) % 10 < 7 THEN 'open' WHEN (g / 10) % 10 = 7 THEN 'archived' WHEN (g / 10) % 10 = 8 THEN 'redriven' ELSE 'discarded' END)::"DeadLetterStatus",
      now() + interval '14 days'
    FROM generate_series(1, ${rows}) g,
      LATERAL (SELECT '{"order":' || g || ',"customer":"c-' || (g % 5000) || '","items":[{"sku":"sku-' || (g % 977) || '","qty":' || (g % 5 + 1)
                      || '}],"note":"parcel ' || md5(g::text) || '"}' AS txt) t`);
  for (const i of indexes) await sql.unsafe(i.create);
  await noteLoadedErrorTypes(sql);
  await sql.unsafe('VACUUM ANALYZE dead_letters');
}
