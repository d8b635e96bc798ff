// The dead-letters list at 1,000,000 dead letters (target: p95 ≤ 50 ms server time): the lib query
// the page and GET /api/v1/dead-letters run (listDeadLetters, in process: SQL plus mapping, no HTTP
// or rendering), with a filter, first page and a deep keyset page, for a team-scoped support engineer
// and an admin. Also the capped count and an error-type filter, for information. Text search (trigram)
// is left out: building the trigram indexes over 1,000,000 payloads would double the bench's time.
// Rows come from generate_series (test/bench/million-dead-letters.ts). Runs in a child process with
// its own database (lib/env is read once per process).
//   npx tsx test/bench/run.ts list
import type postgres from 'postgres';
import type { BenchResult } from './run';
import { measureWhenFlagged, p95Results, runBenchChild, timed, type Timing } from './support';
import { pg as pgPool } from '@/lib/db';
import { encodeCursor } from '@/lib/deadletters/filters';
import { countDeadLetters, listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { clusterId, MILLION, seedMillion, sourceId, TEAMS } from './million-dead-letters';

const CHILD_FLAG = '--list-bench-child';
const TARGET_MS = 50;

async function child(): Promise<Timing[]> {
  const pg = pgPool();
  const log = (m: string) => process.stderr.write(`[list bench] ${m}\n`);

  const t = performance.now();
  await seedMillion(pg);
  log(`seeded ${MILLION} dead letters in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  const [support] = await pg<
    { id: string }[]
  >`INSERT INTO users (email, role, team_id, updated_at) VALUES ('support@bench.local', 'support', ${TEAMS.commerce}, now()) RETURNING id`;
  const supportActor = { userId: support!.id, email: 'support@bench.local', role: 'support' as const, teamId: TEAMS.commerce, via: 'session' as const };
  const adminActor = { userId: support!.id, email: 'admin@bench.local', role: 'admin' as const, teamId: null, via: 'session' as const };

  // A deep page: the keyset position that many rows into the filter, as a user paging on would hold.
  const deep = async (rows: number, where: postgres.PendingQuery<postgres.Row[]>) => {
    const [r] = await pg<
      { id: bigint; dead_at: Date }[]
    >`SELECT id, dead_at FROM dead_letters d WHERE ${where} ORDER BY dead_at DESC, id DESC OFFSET ${rows} LIMIT 1`;
    return encodeCursor({ deadAt: r!.dead_at, id: r!.id });
  };
  const teamSources = [0, 1, 2, 3, 4].map(sourceId);
  const supportDeep = await deep(200_000, pg`d.source_id = ANY(${teamSources}::uuid[]) AND d.status = 'open'`);
  const adminDeep = await deep(80_000, pg`d.source_id = ${sourceId(3)}::uuid AND d.status <> 'discarded'`);

  const out: Timing[] = [];
  const runs = 100;
  out.push(await timed('support (team, 5 sources), status=open: first page', runs, () => listDeadLetters(supportActor, { status: ['open'] })));
  out.push(
    await timed('support (team, 5 sources), status=open: page at row 200,000', runs, () => listDeadLetters(supportActor, { status: ['open'] }, supportDeep)),
  );
  out.push(await timed('support (team), any status: first page', runs, () => listDeadLetters(supportActor, {})));
  out.push(
    await timed('admin, source=source-3, status=open,archived,redriven: first page', runs, () =>
      listDeadLetters(adminActor, { source: ['source-3'], status: ['open', 'archived', 'redriven'] }),
    ),
  );
  out.push(
    await timed('admin, source=source-3, status=open,archived,redriven: page at row 80,000', runs, () =>
      listDeadLetters(adminActor, { source: ['source-3'], status: ['open', 'archived', 'redriven'] }, adminDeep),
    ),
  );
  out.push(await timed('admin, reason=Rejected, oldest first: first page', runs, () => listDeadLetters(adminActor, { reason: ['Rejected'], sort: 'oldest' })));
  out.push(await timed('admin, cluster members (5,000 rows): first page', runs, () => listDeadLetters(adminActor, { clusterId: clusterId(42) })));
  out.push(
    await timed('support, status=open: count (exact up to 10,000, else capped)', runs, () => countDeadLetters(supportActor, { status: ['open'] }), false),
  );
  out.push(
    await timed(
      'admin, source=source-3, errorType=Err7 (planner-chosen index): first page',
      runs,
      () => listDeadLetters(adminActor, { source: ['source-3'], errorType: 'Err7' }),
      false,
    ),
  );
  return out;
}

export async function run(): Promise<BenchResult[]> {
  return p95Results(await runBenchChild<Timing[]>('list', import.meta.url, CHILD_FLAG, { timeoutMs: 300_000 }), TARGET_MS, 2);
}

measureWhenFlagged(CHILD_FLAG, child);
