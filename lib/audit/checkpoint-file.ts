// Signed checkpoints of the chain head, kept outside the table. The hash chain alone cannot tell a
// cut tail (the last events deleted) or a chain recomputed from an edited row onwards: both leave a
// consistent chain. A checkpoint (head id, head hash, event count, HMAC with AUDIT_CHECKPOINT_KEY)
// written elsewhere can: verify holds the table to every valid checkpoint of this database.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { env } from '@/lib/env';
import { canonical } from './canonical';

export interface Checkpoint {
  v: 1;
  /** The database the chain lives in: a checkpoint says nothing about another database's trail. */
  db: string;
  headId: string;
  headHash: string;
  /** Events with id ≤ headId when it was written. */
  count: number;
  at: string;
  sig: string;
}

export type UnsignedCheckpoint = Omit<Checkpoint, 'sig'>;

export function checkpointFile(): string {
  const e = env();
  return path.resolve(/*turbopackIgnore: true*/ e.AUDIT_CHECKPOINT_FILE ?? path.join(e.TRIAGE_STATE_DIR, 'audit-checkpoints.ndjson'));
}

function signature(c: UnsignedCheckpoint, key: string): string {
  const { v, db, headId, headHash, count, at } = c;
  return createHmac('sha256', key).update(canonical({ v, db, headId, headHash, count, at })).digest('hex');
}

function validSignature(c: Checkpoint, key: string): boolean {
  const expected = Buffer.from(signature(c, key), 'hex');
  const given = Buffer.from(typeof c.sig === 'string' ? c.sig : '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function currentDatabase(sql: postgres.Sql = pg()): Promise<string> {
  const [row] = await sql<{ db: string }[]>`SELECT current_database() AS db`;
  return row!.db;
}

export interface CheckpointFileContents {
  /** Valid checkpoints of this database, oldest head first. */
  checkpoints: Checkpoint[];
  /** Lines that did not parse or whose signature is wrong: someone wrote them without the key. */
  invalid: number;
}

export async function readCheckpoints(opts: { file?: string; db: string; key?: string }): Promise<CheckpointFileContents> {
  const file = opts.file ?? checkpointFile();
  const key = opts.key ?? env().AUDIT_CHECKPOINT_KEY;
  const checkpoints: Checkpoint[] = [];
  let invalid = 0;
  // The path comes from config at run time; the ignore comments keep the bundler from tracing the project.
  if (!existsSync(/*turbopackIgnore: true*/ file)) return { checkpoints, invalid };
  const lines = createInterface({ input: createReadStream(/*turbopackIgnore: true*/ file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    let c: Checkpoint;
    try {
      c = JSON.parse(line) as Checkpoint;
    } catch {
      invalid++;
      continue;
    }
    if (c?.v !== 1 || typeof c.headId !== 'string' || !/^\d+$/.test(c.headId) || !validSignature(c, key)) invalid++;
    else if (c.db === opts.db) checkpoints.push(c);
  }
  checkpoints.sort((a, b) => (BigInt(a.headId) < BigInt(b.headId) ? -1 : BigInt(a.headId) > BigInt(b.headId) ? 1 : 0));
  return { checkpoints, invalid };
}

/** Signs a checkpoint and appends it to the file (created with mode 0600). */
export async function appendCheckpoint(unsigned: UnsignedCheckpoint, opts: { file?: string; key?: string } = {}): Promise<Checkpoint> {
  const file = opts.file ?? checkpointFile();
  const checkpoint: Checkpoint = { ...unsigned, sig: signature(unsigned, opts.key ?? env().AUDIT_CHECKPOINT_KEY) };
  await mkdir(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true });
  await appendFile(/*turbopackIgnore: true*/ file, `${JSON.stringify(checkpoint)}\n`, { mode: 0o600 });
  return checkpoint;
}
