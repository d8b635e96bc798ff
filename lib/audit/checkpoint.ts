// The periodic checkpoint: verify what was appended since the last one, then sign the new head
// (see checkpoint-file.ts for why checkpoints live outside the table).
import type postgres from 'postgres';
import { pg } from '@/lib/db';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { appendCheckpoint, checkpointFile, currentDatabase, readCheckpoints, type Checkpoint } from './checkpoint-file';
import { verifyChain, type VerifyResult } from './verify';

export interface CheckpointResult {
  written: boolean;
  checkpoint?: Checkpoint;
  verify: VerifyResult;
}

/**
 * Verify the events since the last checkpoint and sign the new head. Refuses to sign a broken chain
 * (that would bless it). Scheduled by the maintenance worker; `triage audit checkpoint` runs it too.
 */
export async function writeCheckpoint(opts: { sql?: postgres.Sql; file?: string; key?: string; now?: Date } = {}): Promise<CheckpointResult> {
  const sql = opts.sql ?? pg();
  const file = opts.file ?? checkpointFile();
  const key = opts.key ?? env().AUDIT_CHECKPOINT_KEY;
  const db = await currentDatabase(sql);
  const { checkpoints } = await readCheckpoints({ file, db, key });
  const last = checkpoints.at(-1);
  const verify = await verifyChain({ sql, from: last, checkpoints: [] });
  if (!verify.ok) {
    log.error({ firstBrokenId: verify.firstBrokenId, problem: verify.problem }, 'audit chain broken: checkpoint not written');
    return { written: false, checkpoint: last, verify };
  }
  if (!verify.headId || verify.headId === last?.headId) return { written: false, checkpoint: last, verify };
  const checkpoint = await appendCheckpoint(
    { v: 1, db, headId: verify.headId, headHash: verify.headHash, count: verify.checked, at: (opts.now ?? new Date()).toISOString() },
    { file, key },
  );
  return { written: true, checkpoint, verify };
}
