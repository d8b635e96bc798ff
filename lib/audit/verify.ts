// Recompute the hash chain in id order and name the first broken link. Reads in keyset batches
// so a million events verify with flat memory.
import { sql as pg } from '@/lib/db';
import { GENESIS_HASH, eventHash } from './canonical';

export interface VerifyResult {
  ok: boolean;
  checked: number;
  firstBrokenId?: string;
  problem?: string;
  headHash: string;
  headId?: string;
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

export async function verifyChain(opts: { batch?: number; sql?: ReturnType<typeof pg> } = {}): Promise<VerifyResult> {
  const sql = opts.sql ?? pg();
  const batch = opts.batch ?? 10_000;
  let prev = GENESIS_HASH;
  let after = 0n;
  let checked = 0;
  let headId: string | undefined;
  for (;;) {
    const rows = await sql<Row[]>`
      SELECT id, at, actor_id, actor_email, actor_role, action, target_type, target_id, team_id,
             source_id, selection, count, reason, before, after, result, prev_hash, hash
      FROM audit_events WHERE id > ${after.toString()} ORDER BY id LIMIT ${batch}`;
    for (const r of rows) {
      const id = r.id.toString();
      if (r.prev_hash !== prev) {
        return { ok: false, checked, firstBrokenId: id, problem: 'previous hash does not match the event before it', headHash: prev, headId };
      }
      const h = eventHash({
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
      if (h !== r.hash) {
        return { ok: false, checked, firstBrokenId: id, problem: 'event content does not match its hash', headHash: prev, headId };
      }
      prev = r.hash;
      headId = id;
      checked++;
    }
    if (rows.length < batch) break;
    after = rows[rows.length - 1]!.id;
  }
  return { ok: true, checked, headHash: prev, headId };
}
