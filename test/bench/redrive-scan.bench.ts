// A redrive task's scan for deaths of what it sent (detectDeadAgain: every 5 s while it runs, and at
// each window's end) on a source a storm is filling: SCAN_ROWS open dead letters (default 1,000,000)
// recorded since the task began, 1,000 of them the deaths of its redriven messages (generation 1).
// Reported: the scan's median time against reading the source's open dead letters since the task
// began (what the scan read before it was limited to later generations), measured in the same run.
//   SCAN_ROWS=200000 npm run bench redrive-scan
import type { BenchResult } from './run';
import { dropDeadLetterIndexes, measureWhenFlagged, runBenchChild, timeRuns } from './support';
import { pg } from '@/lib/db';
import { detectDeadAgain } from '@/lib/intake/redrive-outcomes';

const CHILD_FLAG = '--redrive-scan-bench-child';
const ROWS = Number((process.env.SCAN_ROWS ?? '1000000').replaceAll('_', ''));
const SENT = 1_000;
const SOURCE = '00000000-0000-4000-8000-000000000001';
const TEAM = '11111111-1111-4111-8111-111111111111';

interface Measured {
  scanMs: number;
  readAllMs: number;
  found: number;
}

async function child(): Promise<Measured> {
  const sql = pg();
  await sql`INSERT INTO teams (id, name) VALUES (${TEAM}, 'commerce')`;
  await sql`INSERT INTO sources (id, name, team_id, updated_at) VALUES (${SOURCE}, 'orders', ${TEAM}, now())`;
  // The task began an hour ago, with SENT first deaths (generation 0) sent back.
  const since = new Date(Date.now() - 3_600_000);
  const [task] = await sql<{ id: string }[]>`
    INSERT INTO redrive_tasks (source_id, status, selection, total, sent, outcome_window_ms, created_at, started_at, updated_at)
    VALUES (${SOURCE}, 'running', '{}', ${SENT}, ${SENT}, 7200000, ${since}, ${since}, now()) RETURNING id::text`;
  const indexes = await dropDeadLetterIndexes(sql);
  await sql.unsafe(`SET maintenance_work_mem = '256MB'`);
  // The sent ones' first deaths (before the task), their deaths again (generation 1, since), and the
  // storm's first deaths since, every one open.
  const insert = (gen: number, from: number, to: number, status: string, at: string) =>
    sql.unsafe(`
      INSERT INTO dead_letters (source_id, message_id, generation, reason, error_type, error_message, receive_count, dead_at, created_at,
                                payload_size, payload_sha256, headers, fingerprint, status, expires_at)
      SELECT '${SOURCE}', 'm-' || g, ${gen}, 'Rejected', 'Timeout', 'upstream timed out after ' || g || ' ms', 3, ${at}, ${at},
        0, 'x', '{}', 'fp', '${status}', now() + interval '14 days'
      FROM generate_series(${from}, ${to}) g`);
  await insert(0, 1, SENT, 'redriven', `now() - interval '2 hours'`);
  await insert(1, 1, SENT, 'open', `now() - interval '30 minutes'`);
  await insert(0, SENT + 1, ROWS, 'open', `now() - make_interval(secs => (g % 3000)::float8)`);
  for (const i of indexes) await sql.unsafe(i.create);
  await sql`
    INSERT INTO redrive_items (task_id, seq, dead_letter_id, state, attempts, sent_at)
    SELECT ${task!.id}::uuid, row_number() OVER (ORDER BY k.id)::int, k.id, 'sent', 1, ${new Date(since.getTime() + 1_000)}
    FROM dead_letter_keys k WHERE k.source_id = ${SOURCE}::uuid AND k.generation = 0 AND k.message_id = ANY(${Array.from({ length: SENT }, (_, i) => `m-${i + 1}`)})`;
  await sql.unsafe('VACUUM ANALYZE dead_letters');
  await sql.unsafe('VACUUM ANALYZE dead_letter_keys');
  await sql.unsafe('ANALYZE redrive_items');
  console.error(`redrive-scan: ${ROWS} open dead letters since the task began, ${SENT} of them deaths of what it sent`);

  const scope = { id: task!.id, sourceId: SOURCE, since };
  // The first scan finds and records the deaths; later ones read the same rows and find nothing new.
  const found = await detectDeadAgain(scope, 100_000);
  const scan = await timeRuns(10, 2, () => detectDeadAgain(scope, 100_000));
  const readAll = await timeRuns(
    10,
    2,
    () => sql`SELECT count(*) FROM dead_letters n WHERE n.source_id = ${SOURCE}::uuid AND n.status = 'open' AND n.created_at >= ${since}`,
  );
  return { scanMs: scan.at(0.5), readAllMs: readAll.at(0.5), found };
}

export async function run(): Promise<BenchResult[]> {
  const m = await runBenchChild<Measured>('redrive_scan', import.meta.url, CHILD_FLAG, { timeoutMs: 30 * 60_000 });
  return [
    { name: `redrive scan: deaths found (of ${SENT} sent)`, value: m.found, unit: 'items', target: `= ${SENT}`, met: m.found === SENT },
    {
      name: `redrive scan at ${ROWS.toLocaleString('en')} open dead letters since the task began (median of 10)`,
      value: m.scanMs,
      unit: 'ms',
      baseline: { name: 'reading those open dead letters', value: m.readAllMs },
      target: '≤ 0.1× baseline',
      met: m.scanMs <= 0.1 * m.readAllMs,
    },
  ];
}

measureWhenFlagged(CHILD_FLAG, child);
