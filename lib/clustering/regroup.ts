// Re-applying a source's grouping rules to its open dead letters, on request: a run walks
// them in id order in bounded batches, each batch its own transaction, keeping its cursor and
// progress (done of total, moved) in regroup_runs, so it survives a restart and the page shows how
// far it got. Each dead letter is re-keyed with the rules in force (fingerprint, then the rule
// part); one whose key changed is stored under the new key and moved, counts and all, into the
// cluster of that key (created, and merged with its kin by the second stage, as at ingest). Only
// its cluster and key change: status, history and payload stay. The maintenance worker advances
// running runs every few seconds; a change of rules supersedes a run.
import { z } from 'zod';
import { isoTime } from '@/lib/wire';
import { append } from '@/lib/audit';
import { auditActor, authorize, isSystem, type Principal } from '@/lib/auth';
import { db, type Tx } from '@/lib/db';
import { reasonSchema } from '@/lib/deadletters/decide';
import { findSource } from '@/lib/model/find-source';
import { prismaQuery } from './absorb-clusters';
import { fingerprint } from './fingerprint';
import { applyGrouping, groupingOf, hasPayloadRule, type RuledFingerprint } from './grouping-rules';
import { mergeNewClusters } from './merge-new-clusters';
import { moveMembers } from './move-members';
import { sensitivePathsOf } from '@/lib/masking/policy';

export const startRegroupInput = z.object({ reason: reasonSchema }).strict();
export type StartRegroupInput = z.input<typeof startRegroupInput>;

/** Dead letters per batch (one transaction each). */
export const REGROUP_BATCH = 500;
/** Batches one advance runs before it yields to the next scheduled one. */
const BATCHES_PER_ADVANCE = 20;
const REGROUP_LOCK = 72_010_016;

export const RegroupRunView = z.object({
  id: z.uuid(),
  source: z.string(),
  ruleVersion: z.int(),
  status: z.enum(['running', 'done', 'superseded']),
  total: z.int().describe('Open dead letters to look at'),
  done: z.int().describe('Looked at so far'),
  moved: z.int().describe('Moved to another cluster so far'),
  createdAt: isoTime,
  finishedAt: isoTime.nullable(),
});
export type RegroupRunView = z.infer<typeof RegroupRunView>;
/** GET /api/v1/sources/{source}/grouping-rules/reapply. */
export const LatestRegroupView = z.object({ run: RegroupRunView.nullable() });

type RunRow = {
  id: string;
  sourceId: string;
  ruleVersion: number;
  status: string;
  total: number;
  done: number;
  moved: number;
  cursor: bigint;
  createdAt: Date;
  finishedAt: Date | null;
};
const view = (r: RunRow, source: string): RegroupRunView => ({
  id: r.id,
  source,
  ruleVersion: r.ruleVersion,
  status: r.status as RegroupRunView['status'],
  total: r.total,
  done: r.done,
  moved: r.moved,
  createdAt: r.createdAt.toISOString(),
  finishedAt: r.finishedAt?.toISOString() ?? null,
});

/** Start re-applying the source's rules to its open dead letters; an earlier running run is superseded. */
export async function startRegroup(actor: Principal, sourceRef: string, input: StartRegroupInput): Promise<RegroupRunView> {
  authorize(actor, 'sources.grouping');
  const { reason } = startRegroupInput.parse(input);
  return db().$transaction(async (tx) => {
    const source = await findSource(actor, sourceRef, 'sources.grouping', tx);
    await tx.regroupRun.updateMany({ where: { sourceId: source.id, status: 'running' }, data: { status: 'superseded', finishedAt: new Date() } });
    const total = await tx.deadLetter.count({ where: { sourceId: source.id, status: 'open' } });
    const run = await tx.regroupRun.create({
      data: { sourceId: source.id, ruleVersion: source.groupingVersion, total, createdById: isSystem(actor) ? null : actor.userId },
    });
    await append(tx, {
      actor: auditActor(actor),
      action: 'source.regroup',
      targetType: 'source',
      targetId: source.id,
      teamId: source.teamId,
      sourceId: source.id,
      selection: { source: source.name, status: 'open', ruleVersion: source.groupingVersion },
      count: total,
      reason,
    });
    return view(run, source.name);
  });
}

/** The source's latest run, for its progress. */
export async function latestRegroup(actor: Principal, sourceRef: string): Promise<RegroupRunView | null> {
  authorize(actor, 'deadletters.read');
  const source = await findSource(actor, sourceRef, 'deadletters.read');
  const run = await db().regroupRun.findFirst({ where: { sourceId: source.id }, orderBy: { createdAt: 'desc' } });
  return run ? view(run, source.name) : null;
}

interface Open {
  id: bigint;
  reason: string;
  error_type: string | null;
  error_message: string | null;
  error_stack: string | null;
  headers: Record<string, unknown> | null;
  payload: Uint8Array | null;
  fingerprint: string;
  dead_at: Date;
}

/** One batch of a run; returns false when the run is over (done or superseded). */
async function regroupBatch(tx: Tx, runId: string): Promise<boolean> {
  const q = prismaQuery(tx);
  const [run] = await q<{
    source_id: string;
    rule_version: number;
    status: string;
    cursor: bigint;
    grouping_rules: unknown;
    grouping_version: number;
    sensitive_paths: unknown;
  }>`
    SELECT r.source_id::text, r.rule_version, r.status, r.cursor, s.grouping_rules, s.grouping_version, s.sensitive_paths
    FROM regroup_runs r JOIN sources s ON s.id = r.source_id WHERE r.id = ${runId}::uuid FOR UPDATE OF r`;
  if (run?.status !== 'running') return false;
  if (run.grouping_version !== run.rule_version) {
    await q`UPDATE regroup_runs SET status = 'superseded', finished_at = now() WHERE id = ${runId}::uuid RETURNING id`;
    return false;
  }
  const grouping = { ...groupingOf(run.grouping_rules, run.grouping_version), sensitivePaths: sensitivePathsOf(run.sensitive_paths) };
  const payloadCol = hasPayloadRule(grouping) ? 'payload' : 'NULL::bytea AS payload';
  const rows = await tx.$queryRawUnsafe<Open[]>(
    `SELECT id, reason::text, error_type, error_message, error_stack, headers, ${payloadCol}, fingerprint, dead_at
     FROM dead_letters WHERE source_id = $1::uuid AND status = 'open' AND id > $2::bigint ORDER BY id LIMIT ${REGROUP_BATCH}`,
    run.source_id,
    run.cursor.toString(),
  );
  if (rows.length === 0) {
    await q`UPDATE regroup_runs SET status = 'done', finished_at = now() WHERE id = ${runId}::uuid RETURNING id`;
    return false;
  }
  const changed = new Map<string, { ruled: RuledFingerprint; type: string; first: Date; ids: bigint[] }>();
  for (const r of rows) {
    const type = r.error_type ?? r.reason;
    const fp = fingerprint({ type, message: r.error_message ?? '', stack: r.error_stack });
    const ruled = applyGrouping(fp, type, grouping, { payload: r.payload ?? new Uint8Array(), headers: r.headers ?? undefined });
    if (ruled.key === r.fingerprint) continue;
    const c = changed.get(ruled.key);
    if (c) {
      c.ids.push(r.id);
      if (r.dead_at < c.first) c.first = r.dead_at;
    } else changed.set(ruled.key, { ruled, type, first: r.dead_at, ids: [r.id] });
  }
  let moved = 0;
  if (changed.size) {
    const keys = [...changed.keys()].sort();
    const created = await q<{ id: string; template: string; shape: string; top_frame: string | null }>`
      INSERT INTO clusters (fingerprint, template, error_type, top_frame, shape, grouped_by, first_seen, last_seen)
      SELECT * FROM unnest(${keys}::text[], ${keys.map((k) => changed.get(k)!.ruled.template)}::text[], ${keys.map((k) => changed.get(k)!.type)}::text[],
                           ${keys.map((k) => changed.get(k)!.ruled.frame)}::text[], ${keys.map((k) => changed.get(k)!.ruled.shape)}::text[],
                           ${keys.map((k) => changed.get(k)!.ruled.groupedBy)}::text[], ${keys.map((k) => changed.get(k)!.first.toISOString())}::timestamptz[],
                           ${keys.map((k) => changed.get(k)!.first.toISOString())}::timestamptz[])
      ON CONFLICT (fingerprint) DO NOTHING RETURNING id::text, template, shape, top_frame`;
    if (created.length) await mergeNewClusters(q, created);
    const found = await q<{ fingerprint: string; id: string }>`
      SELECT fingerprint, coalesce(merged_into_id, id)::text AS id FROM clusters WHERE fingerprint = ANY(${keys}::text[])`;
    for (const f of found) {
      const c = changed.get(f.fingerprint)!;
      await q`UPDATE dead_letters SET fingerprint = ${f.fingerprint} WHERE id = ANY(${c.ids.map(String)}::bigint[]) RETURNING id`;
      moved += (await moveMembers(q, c.ids, f.id)).members;
    }
  }
  await q`
    UPDATE regroup_runs SET cursor = ${rows[rows.length - 1]!.id.toString()}::bigint, done = done + ${rows.length}::int,
      total = greatest(total, done + ${rows.length}::int),
      moved = moved + ${moved}::int
    WHERE id = ${runId}::uuid RETURNING id`;
  return true;
}

/** Advance running runs by bounded batches (the maintenance worker's job); returns the batches run. */
export async function advanceRegroupRuns(opts: { batches?: number } = {}): Promise<number> {
  const budget = opts.batches ?? BATCHES_PER_ADVANCE;
  let ran = 0;
  const runs = await db().regroupRun.findMany({ where: { status: 'running' }, orderBy: { createdAt: 'asc' }, select: { id: true } });
  for (const { id } of runs) {
    while (ran < budget) {
      const more = await db().$transaction(
        async (tx) => {
          // One advancer per run at a time, however many maintenance processes run.
          const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${REGROUP_LOCK}::int, hashtext(${id}::text)) AS ok`;
          if (!lock?.ok) return false;
          return regroupBatch(tx, id);
        },
        { timeout: 60_000 },
      );
      if (!more) break;
      ran++;
    }
    if (ran >= budget) break;
  }
  return ran;
}
