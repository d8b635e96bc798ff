// The retention sweeper: an open dead letter past its expiry (the stricter of the dead-letter and
// original-enqueue clocks, stamped at ingest) becomes an `expired` tombstone — payload purged, row,
// metadata and SHA-256 kept, cluster open counts taken down (closeDeadLetters) — with one system
// audit event per batch. A dead letter that a redrive still holds is never expired under it: the
// redrive decides it.
import { append } from '@/lib/audit';
import { auditActor, SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import { systemClock, type Clock } from '@/lib/clock';

export const SWEEP_BATCH = 1000;
const RETENTION_ACTOR = { ...SYSTEM, label: 'retention' };

export interface SweepResult {
  expired: number;
  batches: number;
}

/**
 * Expire what is due, one source and at most `batchSize` dead letters per transaction, up to
 * `maxBatches` per run; the next run carries on.
 */
export async function sweepExpired(clock: Clock = systemClock, opts: { batchSize?: number; maxBatches?: number } = {}): Promise<SweepResult> {
  const batchSize = opts.batchSize ?? SWEEP_BATCH;
  const maxBatches = opts.maxBatches ?? 50;
  const now = clock.now();
  const due = await db().$queryRaw<{ id: string; team_id: string }[]>`
    SELECT s.id, s.team_id FROM sources s
    WHERE EXISTS (SELECT 1 FROM dead_letters d WHERE d.source_id = s.id AND d.status = 'open' AND d.expires_at <= ${now})
    ORDER BY s.name`;
  let expired = 0;
  let batches = 0;
  for (const source of due) {
    while (batches < maxBatches) {
      const n = await expireBatch(source.id, source.team_id, now, batchSize);
      if (n > 0) batches++;
      expired += n;
      if (n < batchSize) break;
    }
  }
  return { expired, batches };
}

async function expireBatch(sourceId: string, teamId: string, now: Date, batchSize: number): Promise<number> {
  return db().$transaction(async (tx) => {
    // Locked here, skipping rows another decision holds right now; the next sweep gets those.
    const due = await tx.$queryRaw<{ id: bigint }[]>`
      SELECT d.id FROM dead_letters d
      WHERE d.source_id = ${sourceId}::uuid AND d.status = 'open' AND d.expires_at <= ${now}
        AND NOT EXISTS (
          SELECT 1 FROM redrive_items i JOIN redrive_tasks t ON t.id = i.task_id
          WHERE i.dead_letter_id = d.id AND i.state IN ('pending', 'sent') AND t.status IN ('queued', 'running', 'paused'))
      ORDER BY d.expires_at
      LIMIT ${batchSize}
      FOR UPDATE OF d SKIP LOCKED`;
    const expired = await closeDeadLetters(
      tx,
      due.map((d) => d.id),
      'expired',
      { from: ['open'], decidedById: null, reason: 'expired under the source retention before anyone decided it', at: now },
    );
    if (expired.length === 0) return 0;
    await append(tx, {
      actor: auditActor(RETENTION_ACTOR),
      action: 'deadletter.expire',
      targetType: 'source',
      targetId: sourceId,
      sourceId,
      teamId,
      selection: { status: 'open', expiresAtOrBefore: now.toISOString() },
      count: expired.length,
      reason: 'retention: expired before anyone decided them; payloads purged, tombstones kept',
      result: `${expired.length} expired`,
    });
    return expired.length;
  });
}
