// `npm run bench page-plans` (on demand): the plans of the three pages a storm made slow, at
// PLANS_ROWS dead letters (default 5,000,000; generate_series, test/bench/million-dead-letters.ts)
// with the cluster summaries filled from them: the dead-letter list filtered by source + open +
// error type, the inbox (open clusters), and a cluster page (its detail and its first page of
// members). Every statement a page sends through postgres.js is captured and EXPLAINed (ANALYZE,
// BUFFERS); the bench fails if any of them scans a partition of dead_letters sequentially, and
// reports each plan's shape (its nodes and relations) and time. Its own database, dropped at the end.
//   PLANS_ROWS=200000 npm run bench page-plans
import postgresJs from 'postgres';
import type postgres from 'postgres';
import type { BenchResult } from './run';
import { measureWhenFlagged, runBenchChild } from './support';
import { getCluster } from '@/lib/clustering/get-cluster';
import { listClusters } from '@/lib/clustering/list-clusters';
import { listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { env } from '@/lib/env';
import { clusterId, seedMillion, TEAMS } from './million-dead-letters';

const CHILD_FLAG = '--page-plans-bench-child';
const ROWS = Number((process.env.PLANS_ROWS ?? '5000000').replaceAll('_', ''));

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Total Time'?: number;
  Plans?: PlanNode[];
}
interface Statement {
  page: string;
  sql: string;
  ms: number;
  shape: string;
  seqScans: string[];
  /** Seq scans of partitions that hold no row (the months made ahead): free, and the planner's right choice. */
  emptyScans: string[];
}

/** The plan as one line: node types with their relation or index, depth-first, repeated siblings folded. */
function shapeOf(node: PlanNode): string {
  const self = `${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : node['Relation Name'] ? ` ${node['Relation Name']}` : ''}`;
  const kids = (node.Plans ?? []).map(shapeOf);
  const folded: string[] = [];
  for (const k of kids) {
    const last = folded.at(-1);
    const m = last?.match(/^(\d+)× (.*)$/s);
    if (m && m[2] === k) folded[folded.length - 1] = `${Number(m[1]) + 1}× ${k}`;
    else if (last === k) folded[folded.length - 1] = `2× ${k}`;
    else folded.push(k);
  }
  return folded.length ? `${self} [${folded.join(', ')}]` : self;
}

// The table and its partitions (dead_letters_p<yyyymm>, dead_letters_default, the legacy one).
const DEAD_LETTERS = /^dead_letters(_p\d{6}|_default|_legacy)?$/;

function seqScansOf(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && DEAD_LETTERS.test(node['Relation Name'] ?? '') ? [node['Relation Name']!] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScansOf)];
}

async function child(): Promise<Statement[]> {
  const captured: { q: string; p: unknown[] }[] = [];
  // The pool lib/db's pg() hands out, with a debug hook: every statement the pages send is seen.
  const sql = postgresJs(env().DATABASE_URL, {
    max: 2,
    onnotice: () => {},
    types: { bigint: postgresJs.BigInt },
    debug: (_c, q, p) => captured.push({ q, p: p as unknown[] }),
  });
  (globalThis as unknown as { __triageSql?: postgres.Sql }).__triageSql = sql;
  const log = (m: string) => process.stderr.write(`[page-plans bench] ${m}\n`);

  let t = performance.now();
  await seedMillion(sql, ROWS);
  // The summaries the inbox and the cluster page read, as the write path keeps them.
  await sql`UPDATE clusters c SET count = a.n, open_count = a.o, first_seen = a.f, last_seen = a.l
            FROM (SELECT cluster_id, count(*)::int n, (count(*) FILTER (WHERE status = 'open'))::int o, min(dead_at) f, max(dead_at) l
                  FROM dead_letters GROUP BY 1) a WHERE a.cluster_id = c.id`;
  await sql`INSERT INTO cluster_sources (cluster_id, source_id, count, open_count, first_seen, last_seen)
            SELECT cluster_id, source_id, count(*), count(*) FILTER (WHERE status = 'open'), min(dead_at), max(dead_at) FROM dead_letters
            WHERE cluster_id IS NOT NULL GROUP BY 1, 2`;
  await sql`INSERT INTO cluster_hours (cluster_id, source_id, hour, count)
            SELECT cluster_id, source_id, date_trunc('hour', dead_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*) FROM dead_letters
            WHERE cluster_id IS NOT NULL GROUP BY 1, 2, 3`;
  await sql`VACUUM ANALYZE`;
  log(`seeded ${ROWS} dead letters and their cluster summaries in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const [user] = await sql<
    { id: string }[]
  >`INSERT INTO users (email, role, team_id, updated_at) VALUES ('support@plans.local', 'support', ${TEAMS.commerce}, now()) RETURNING id`;
  const support = { userId: user!.id, email: 'support@plans.local', role: 'support' as const, teamId: TEAMS.commerce, via: 'session' as const };
  // Cluster 40 has members in sources 0, 1 and 2 (commerce): the support engineer may open it.
  const cluster = clusterId(40);
  const pages: { name: string; run: () => Promise<unknown> }[] = [
    {
      name: 'filtered list (source-3, open, error type Err7)',
      run: () => listDeadLetters(support, { source: ['source-3'], status: ['open'], errorType: 'Err7' }),
    },
    { name: 'inbox (open clusters of the team)', run: () => listClusters(support, { state: 'open' }) },
    { name: 'cluster page: detail', run: () => getCluster(support, cluster) },
    { name: 'cluster page: first page of members', run: () => listDeadLetters(support, { clusterId: cluster }) },
  ];
  const empty = new Set<string>();
  for (const { relname } of await sql<
    { relname: string }[]
  >`SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'dead_letters'::regclass`) {
    const [{ any }] = (await sql.unsafe(`SELECT EXISTS (SELECT 1 FROM "${relname}") AS any`)) as unknown as [{ any: boolean }];
    if (!any) empty.add(relname);
  }
  const out: Statement[] = [];
  for (const p of pages) {
    await p.run(); // warm, and the plans of a second run are the ones a busy page gets
    captured.length = 0;
    await p.run();
    const statements = captured.splice(0).filter((c) => /^\s*(SELECT|WITH|\()/i.test(c.q));
    for (const s of statements) {
      t = performance.now();
      const [row] = await sql.begin(async (tx) => {
        await tx`SET LOCAL jit = off`;
        return tx.unsafe(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.q}`, s.p as never[]);
      });
      const plan = (row as unknown as { 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number }[] })['QUERY PLAN'][0]!;
      const scans = [...new Set(seqScansOf(plan.Plan))];
      out.push({
        page: p.name,
        sql: s.q.replace(/\s+/g, ' ').slice(0, 160),
        ms: plan['Execution Time'],
        shape: shapeOf(plan.Plan),
        seqScans: scans.filter((r) => !empty.has(r)),
        emptyScans: scans.filter((r) => empty.has(r)),
      });
    }
  }
  return out;
}

export async function run(): Promise<BenchResult[]> {
  const statements = await runBenchChild<Statement[]>('page_plans', import.meta.url, CHILD_FLAG, { timeoutMs: 60 * 60_000 });
  for (const s of statements) {
    process.stderr.write(`[page-plans bench] ${s.page}: ${s.ms.toFixed(1)} ms\n  ${s.sql}\n  plan: ${s.shape}\n`);
  }
  const pages = [...new Set(statements.map((s) => s.page))];
  return pages.map((page) => {
    const mine = statements.filter((s) => s.page === page);
    const seq = [...new Set(mine.flatMap((s) => s.seqScans))];
    const empty = [...new Set(mine.flatMap((s) => s.emptyScans))];
    return {
      name:
        `${page} at ${ROWS.toLocaleString('en')} dead letters: ${mine.length} statements, EXPLAIN ANALYZE total` +
        `${seq.length ? `; SEQUENTIAL SCAN of ${seq.join(', ')}` : ''}${empty.length ? ` (seq scans of empty partitions ${empty.join(', ')} not counted)` : ''}`,
      value: Number(mine.reduce((n, s) => n + s.ms, 0).toFixed(2)),
      unit: 'ms',
      target: 'no sequential scan of dead_letters',
      met: seq.length === 0,
    };
  });
}

measureWhenFlagged(CHILD_FLAG, child);
