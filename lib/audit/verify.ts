// Recompute the hash chain in id order and name the first broken link, then hold the table to the
// signed checkpoints kept outside it (checkpoint-file.ts), which catch what a consistent chain
// hides: a cut tail, or a chain recomputed after an edit. Reads in keyset batches (the next batch
// is fetched while this one is hashed), so a million events verify with flat memory.
import type postgres from 'postgres';
import { z } from 'zod';
import { pg } from '@/lib/db';
import { GENESIS_HASH, eventHash } from './canonical';
import { currentDatabase, readCheckpoints, type Checkpoint } from './checkpoint-file';

export interface VerifyResult {
  ok: boolean;
  checked: number;
  firstBrokenId?: string;
  problem?: string;
  headHash: string;
  headId?: string;
  /** The latest signed checkpoint the table was held to. */
  checkpoint?: { headId: string; count: number; at: string };
  /** Checkpoint lines whose signature is wrong (written without the key); ignored, but worth a look. */
  invalidCheckpoints?: number;
}

/** GET /api/v1/audit/verify: the verdict, without the head's hash. */
export const ChainVerdictView = z.object({
  ok: z.boolean(),
  checked: z.int().describe('Events whose hash was recomputed'),
  firstBrokenId: z.string().optional().describe('The first event whose link does not hold (when not ok)'),
  problem: z.string().optional().describe('What is wrong with it'),
  checkpoint: z.object({ headId: z.string(), count: z.int(), at: z.string() }).optional().describe('The latest signed checkpoint the trail was held to'),
  invalidCheckpoints: z.int().optional().describe('Checkpoint lines with a wrong signature (ignored)'),
});

export interface VerifyOptions {
  batch?: number;
  sql?: postgres.Sql;
  /** Checkpoints to hold the chain to; by default the valid ones of this database in the checkpoint file. */
  checkpoints?: Checkpoint[];
  checkpointFile?: string;
  /** Start after a trusted checkpoint instead of at the genesis (the incremental check before a new one). */
  from?: Checkpoint;
}

interface Row {
  id: bigint;
  at: Date;
  actor_id: string | null;
  actor_email: string;
  actor_role: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  team_id: string | null;
  source_id: string | null;
  selection: unknown;
  count: number | null;
  reason: string | null;
  before: unknown;
  after: unknown;
  result: string | null;
  prev_hash: string;
  hash: string;
}

function rowHash(r: Row): string {
  return eventHash({
    at: r.at,
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    actorRole: r.actor_role,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    teamId: r.team_id,
    sourceId: r.source_id,
    selection: r.selection,
    count: r.count,
    reason: r.reason,
    before: r.before,
    after: r.after,
    result: r.result,
    prevHash: r.prev_hash,
  });
}

const when = (c: Checkpoint) => `the checkpoint of ${c.at}`;

export async function verifyChain(opts: VerifyOptions = {}): Promise<VerifyResult> {
  const sql = opts.sql ?? pg();
  const batch = opts.batch ?? 10_000;
  let invalidCheckpoints: number | undefined;
  let checkpoints = opts.checkpoints;
  if (!checkpoints) {
    const read = await readCheckpoints({ file: opts.checkpointFile, db: await currentDatabase(sql) });
    checkpoints = read.checkpoints;
    invalidCheckpoints = read.invalid;
  }

  let prev = GENESIS_HASH;
  let after = 0n;
  let checked = 0;
  let headId: string | undefined;
  let met: Checkpoint | undefined;
  const broken = (id: string, problem: string): VerifyResult => ({
    ok: false,
    checked,
    firstBrokenId: id,
    problem,
    headHash: prev,
    headId,
    ...(met ? { checkpoint: { headId: met.headId, count: met.count, at: met.at } } : {}),
    ...(invalidCheckpoints ? { invalidCheckpoints } : {}),
  });

  if (opts.from) {
    const from = opts.from;
    const [row] = await sql<{ hash: string; n: bigint }[]>`
      SELECT hash, (SELECT count(*) FROM audit_events WHERE id <= ${from.headId}) AS n FROM audit_events WHERE id = ${from.headId}`;
    if (!row) return broken(from.headId, `event #${from.headId} of ${when(from)} is missing`);
    if (row.hash !== from.headHash) return broken(from.headId, `event #${from.headId} differs from ${when(from)}: the chain was recomputed`);
    if (Number(row.n) !== from.count) return broken(from.headId, `${from.count} events up to #${from.headId} at ${when(from)}, ${row.n} now`);
    prev = from.headHash;
    after = BigInt(from.headId);
    checked = from.count;
    headId = from.headId;
    met = from;
  }
  const ahead = checkpoints.filter((c) => BigInt(c.headId) > after);
  let k = 0;

  // postgres.js sends a query when it is awaited or executed: execute() starts the next batch's read
  // while this one is hashed.
  const fetch = (afterId: bigint) =>
    sql<Row[]>`
      SELECT id, at, actor_id, actor_email, actor_role, action, target_type, target_id, team_id,
             source_id, selection, count, reason, before, after, result, prev_hash, hash
      FROM audit_events WHERE id > ${afterId.toString()} ORDER BY id LIMIT ${batch}`.execute();
  let next: Promise<Row[]> | undefined = fetch(after);
  try {
    while (next) {
      const rows: Row[] = await next;
      next = rows.length === batch ? fetch(rows[rows.length - 1]!.id) : undefined;
      for (const r of rows) {
        const id = r.id.toString();
        const cp = ahead[k];
        if (cp && BigInt(cp.headId) < r.id) {
          return broken(cp.headId, `event #${cp.headId}, the head at ${when(cp)}, is missing`);
        }
        if (r.prev_hash !== prev) return broken(id, 'previous hash does not match the event before it');
        if (rowHash(r) !== r.hash) return broken(id, 'event content does not match its hash');
        checked++;
        if (cp && cp.headId === id) {
          if (r.hash !== cp.headHash) {
            const since = met ? `after #${met.headId}` : 'before it';
            return broken(id, `event #${id} differs from ${when(cp)}: the chain was recomputed (changed ${since})`);
          }
          if (checked !== cp.count) {
            return broken(id, `${cp.count} events up to #${id} at ${when(cp)}, ${checked} now: events were removed and the chain recomputed`);
          }
          met = cp;
          k++;
        }
        prev = r.hash;
        headId = id;
      }
    }
  } finally {
    // A verdict reached mid-way leaves one read in flight; its outcome no longer matters.
    next?.catch(() => undefined);
  }
  const cut = ahead[k];
  if (cut) {
    return broken(
      cut.headId,
      `tail cut: ${when(cut)} counted ${cut.count} events up to #${cut.headId}; the trail now ends ${headId ? `at #${headId}` : 'empty'} with ${checked}`,
    );
  }
  return {
    ok: true,
    checked,
    headHash: prev,
    headId,
    ...(met ? { checkpoint: { headId: met.headId, count: met.count, at: met.at } } : {}),
    ...(invalidCheckpoints ? { invalidCheckpoints } : {}),
  };
}
