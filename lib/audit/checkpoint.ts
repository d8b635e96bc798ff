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
 * Verify the events since the last checkpoint and sign the new head. A break inside those events is
 * logged and the head signed all the same: the checkpoint pins the trail as it is, so a later cut
 * or recomputation still shows, and the break itself stays in every full verify (a checkpoint never
 * blesses an event's content). Only a last checkpoint that no longer holds stops it, since the new
 * head would then be counted from a trail that is not the one it signed. Scheduled by the
 * maintenance worker; `triage audit checkpoint` runs it too.
 */
export async function writeCheckpoint(opts: { sql?: postgres.Sql; file?: string; key?: string; now?: Date } = {}): Promise<CheckpointResult> {
  const sql = opts.sql ?? pg();
  const file = opts.file ?? checkpointFile();
  const key = opts.key ?? env().AUDIT_CHECKPOINT_KEY;
  const db = await currentDatabase(sql);
  const { checkpoints } = await readCheckpoints({ file, db, key });
  const last = checkpoints.at(-1);
  const verify = await verifyChain({ sql, from: last, checkpoints: [] });
  if (verify.breakCount > 0) {
    log.error({ breaks: verify.breaks.slice(0, 20), breakCount: verify.breakCount, unacknowledged: verify.unacknowledged }, 'audit chain broken');
  }
  if (verify.fromBroken) return { written: false, checkpoint: last, verify };
  if (!verify.headId || verify.headId === last?.headId) return { written: false, checkpoint: last, verify };
  const checkpoint = await appendCheckpoint(
    { v: 1, db, headId: verify.headId, headHash: verify.headHash, count: verify.checked, at: (opts.now ?? new Date()).toISOString() },
    { file, key },
  );
  return { written: true, checkpoint, verify };
}
