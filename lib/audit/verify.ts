// Recompute the hash chain in id order and name the first broken link, then hold the table to the
// signed checkpoints kept outside it (checkpoint-file.ts), which catch what a consistent chain
// hides: a cut tail, or a chain recomputed after an edit. Reads in keyset batches (the next batch
// is fetched while this one is hashed), so a million events verify with flat memory.
import type postgres from 'postgres';
import { z } from 'zod';
import { pg } from '@/lib/db';
import { camelRow } from '@/lib/db/camel-row';
import { GENESIS_HASH, eventHash, type HashedFields } from './canonical';
import { currentDatabase, readCheckpoints, type Checkpoint } from './checkpoint-file';

export type BreakKind = 'content' | 'link' | 'checkpoint';

/** One place where the chain does not hold. */
export interface ChainBreak {
  id: string;
  kind: BreakKind;
  problem: string;
  /** The event as it is (for an acknowledgement to hold it to); absent for a missing event. */
  storedHash?: string;
  computedHash?: string;
  prevHash?: string;
  /** An admin looked at this break and said why (lib/audit/acknowledge.ts). */
  acknowledged?: { by: string; at: string; reason: string };
}

export interface VerifyResult {
  /** No break, or only acknowledged ones. */
  ok: boolean;
  checked: number;
  /** The first break not acknowledged (when not ok). */
  firstBrokenId?: string;
  problem?: string;
  /** Every break, acknowledged or not, in chain order; the first MAX_LISTED_BREAKS of them. */
  breaks: ChainBreak[];
  /** How many breaks in all, and how many of them are not acknowledged. */
  breakCount: number;
  unacknowledged: number;
  headHash: string;
  headId?: string;
  /** The latest signed checkpoint the table was held to. */
  checkpoint?: { headId: string; count: number; at: string };
  /** Checkpoint lines whose signature is wrong (written without the key); ignored, but worth a look. */
  invalidCheckpoints?: number;
  /** The incremental check's starting checkpoint no longer holds: nothing after it was checked. */
  fromBroken?: boolean;
}

export const MAX_LISTED_BREAKS = 1000;

const BreakView = z.object({
  id: z.string(),
  kind: z.enum(['content', 'link', 'checkpoint']),
  problem: z.string(),
  acknowledged: z.object({ by: z.string(), at: z.string(), reason: z.string() }).optional().describe('An admin acknowledged it, saying why'),
});

/** GET /api/v1/audit/verify: the verdict, without the head's hash. */
export const ChainVerdictView = z.object({
  ok: z.boolean().describe('No break, or only acknowledged ones'),
  checked: z.int().describe('Events whose hash was recomputed'),
  firstBrokenId: z.string().optional().describe('The first event whose link does not hold and that no admin acknowledged (when not ok)'),
  problem: z.string().optional().describe('What is wrong with it'),
  breaks: z.array(BreakView).describe('Every break found, in chain order (the first 1,000): verification goes on past a break'),
  breakCount: z.int(),
  unacknowledged: z.int(),
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
  /** Acknowledged breaks; by default those of the audit_break_acks table. */
  acks?: Ack[];
}

export interface Ack {
  eventId: string;
  kind: BreakKind;
  storedHash: string;
  computedHash: string;
  prevHash: string;
  by: string;
  at: string;
  reason: string;
}

const ackKey = (a: { eventId?: string; id?: string; kind: BreakKind; storedHash?: string; computedHash?: string; prevHash?: string }) =>
  [a.eventId ?? a.id, a.kind, a.storedHash ?? GENESIS_HASH, a.computedHash ?? GENESIS_HASH, a.prevHash ?? GENESIS_HASH].join('|');

async function readAcks(sql: postgres.Sql): Promise<Ack[]> {
  const rows = await sql<
    { event_id: bigint; kind: BreakKind; stored_hash: string; computed_hash: string; prev_hash: string; by: string; at: Date; reason: string }[]
  >`
    SELECT event_id, kind, stored_hash, computed_hash, prev_hash, by_email AS "by", at, reason FROM audit_break_acks ORDER BY id`;
  return rows.map((r) => ({ ...camelRow(r), eventId: r.event_id.toString(), at: r.at.toISOString() }));
}

/** A stored event as read back: the hashed fields under their own names, so the row hashes as it is. */
type Row = HashedFields & { id: bigint; hash: string };

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
  const acks = new Map((opts.acks ?? (await readAcks(sql))).map((a) => [ackKey(a), a]));

  let prev = GENESIS_HASH;
  let after = 0n;
  let checked = 0;
  let headId: string | undefined;
  let met: Checkpoint | undefined;
  const breaks: ChainBreak[] = [];
  let breakCount = 0;
  let unacknowledged = 0;
  let firstOpen: ChainBreak | undefined;
  // Verification goes on past a break: the rest of the chain is judged on its own links, so a change
  // after a first break is still seen.
  const broke = (b: ChainBreak) => {
    const ack = acks.get(ackKey(b));
    const found: ChainBreak = ack ? { ...b, acknowledged: { by: ack.by, at: ack.at, reason: ack.reason } } : b;
    breakCount++;
    if (!ack) {
      unacknowledged++;
      firstOpen ??= found;
    }
    if (breaks.length < MAX_LISTED_BREAKS) breaks.push(found);
  };
  let fromBroken = false;
  const result = (): VerifyResult => ({
    ...(fromBroken ? { fromBroken } : {}),
    ok: unacknowledged === 0,
    checked,
    ...(firstOpen ? { firstBrokenId: firstOpen.id, problem: firstOpen.problem } : {}),
    breaks,
    breakCount,
    unacknowledged,
    headHash: prev,
    headId,
    ...(met ? { checkpoint: { headId: met.headId, count: met.count, at: met.at } } : {}),
    ...(invalidCheckpoints ? { invalidCheckpoints } : {}),
  });

  if (opts.from) {
    const from = opts.from;
    const [row] = await sql<{ hash: string; n: bigint }[]>`
      SELECT hash, (SELECT count(*) FROM audit_events WHERE id <= ${from.headId}) AS n FROM audit_events WHERE id = ${from.headId}`;
    // The incremental check trusts the chain up to the checkpoint; if that no longer holds, the
    // full verify says where.
    if (!row) {
      broke({ id: from.headId, kind: 'checkpoint', problem: `event #${from.headId} of ${when(from)} is missing` });
      fromBroken = true;
      return result();
    }
    if (row.hash !== from.headHash) {
      broke({
        id: from.headId,
        kind: 'checkpoint',
        problem: `event #${from.headId} differs from ${when(from)}: the chain was recomputed`,
        storedHash: row.hash,
      });
      fromBroken = true;
      return result();
    }
    if (Number(row.n) !== from.count) {
      broke({
        id: from.headId,
        kind: 'checkpoint',
        problem: `${from.count} events up to #${from.headId} at ${when(from)}, ${row.n} now`,
        storedHash: row.hash,
      });
      fromBroken = true;
      return result();
    }
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
      SELECT id, at, actor_id AS "actorId", actor_email AS "actorEmail", actor_role AS "actorRole", actor_via AS "actorVia",
             action, target_type AS "targetType", target_id AS "targetId", team_id AS "teamId", source_id AS "sourceId",
             selection, count, reason, before, after, result, prev_hash AS "prevHash", hash
      FROM audit_events WHERE id > ${afterId.toString()} ORDER BY id LIMIT ${batch}`.execute();
  let next: Promise<Row[]> | undefined = fetch(after);
  try {
    while (next) {
      const rows: Row[] = await next;
      next = rows.length === batch ? fetch(rows[rows.length - 1]!.id) : undefined;
      for (const r of rows) {
        const id = r.id.toString();
        // Checkpoints whose head is gone (passed over without meeting it).
        while (ahead[k] && BigInt(ahead[k]!.headId) < r.id) {
          const cp = ahead[k]!;
          broke({ id: cp.headId, kind: 'checkpoint', problem: `event #${cp.headId}, the head at ${when(cp)}, is missing` });
          k++;
        }
        const computed = eventHash(r);
        const fingerprint = { storedHash: r.hash, computedHash: computed, prevHash: r.prevHash };
        if (r.prevHash !== prev) broke({ id, kind: 'link', problem: 'previous hash does not match the event before it', ...fingerprint });
        if (computed !== r.hash) broke({ id, kind: 'content', problem: 'event content does not match its hash', ...fingerprint });
        checked++;
        const cp = ahead[k];
        if (cp && cp.headId === id) {
          if (r.hash !== cp.headHash) {
            const since = met ? `after #${met.headId}` : 'before it';
            broke({ id, kind: 'checkpoint', problem: `event #${id} differs from ${when(cp)}: the chain was recomputed (changed ${since})`, ...fingerprint });
          } else if (checked !== cp.count) {
            broke({
              id,
              kind: 'checkpoint',
              problem: `${cp.count} events up to #${id} at ${when(cp)}, ${checked} now: events were removed and the chain recomputed`,
              ...fingerprint,
            });
          } else {
            met = cp;
          }
          k++;
        }
        prev = r.hash;
        headId = id;
      }
    }
  } finally {
    // A read in flight when an error ends the loop; its outcome no longer matters.
    next?.catch(() => undefined);
  }
  const cut = ahead[k];
  if (cut) {
    broke({
      id: cut.headId,
      kind: 'checkpoint',
      problem: `tail cut: ${when(cut)} counted ${cut.count} events up to #${cut.headId}; the trail now ends ${headId ? `at #${headId}` : 'empty'} with ${checked}`,
    });
  }
  return result();
}
