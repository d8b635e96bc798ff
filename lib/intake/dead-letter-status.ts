// How a redrive holds its dead letters: open → redriving while a task holds them, and back to open
// when the task lets go of them unsent. 'redriving' is still undecided and stays in the clusters'
// open counts; deciding them 'redriven' is closeDeadLetters' (lib/deadletters), which keeps the counts.
import type { Tx } from '@/lib/db';

/**
 * How an item skipped because its message was gone from the source's broker says so (a Sidekiq job
 * retried, deleted or trimmed in Sidekiq since the import): its dead letter goes back to open.
 */
export const GONE_PREFIX = 'GoneFromSource:';

/** A redriven dead letter is decided from 'redriving' (or 'open', when a cancel let go of it in flight). */
export const HELD_STATUSES = ['open', 'redriving'] as const;

// Dead letters are joined by (id, dead_at), dead_at from the key table: a join on id alone hashes a
// scan of every partition (docs/design.md, Partitioning).

/** Take the task's pending items: their open dead letters become 'redriving'; any no longer open is skipped. */
export async function holdDeadLetters(tx: Tx, taskId: string): Promise<{ held: number; skipped: number }> {
  const held = await tx.$executeRaw`
    UPDATE dead_letters d SET status = 'redriving'
    FROM redrive_items i JOIN dead_letter_keys k ON k.id = i.dead_letter_id
    WHERE i.task_id = ${taskId}::uuid AND i.state = 'pending' AND d.id = k.id AND d.dead_at = k.dead_at AND d.status = 'open'`;
  const skipped = await tx.$executeRaw`
    UPDATE redrive_items i SET state = 'skipped', outcome_at = now(), error = 'No longer open when the task started: ' || d.status::text
    FROM dead_letter_keys k JOIN dead_letters d ON d.id = k.id AND d.dead_at = k.dead_at
    WHERE i.task_id = ${taskId}::uuid AND i.state = 'pending' AND k.id = i.dead_letter_id AND d.status <> 'redriving'`;
  if (skipped > 0) await tx.$executeRaw`UPDATE redrive_tasks SET skipped = skipped + ${skipped} WHERE id = ${taskId}::uuid`;
  return { held, skipped };
}

/**
 * The task lets go of what it has not sent (cancel): those dead letters are open again. While a
 * runner may hold a claimed batch in flight, only never-claimed items are let go (`claimed: false`);
 * the runner lets go of the rest when it stops.
 */
export async function releaseUnsent(tx: Tx, taskId: string, opts: { claimed: boolean }): Promise<number> {
  return tx.$executeRaw`
    UPDATE dead_letters d SET status = 'open'
    FROM redrive_items i JOIN dead_letter_keys k ON k.id = i.dead_letter_id
    WHERE i.task_id = ${taskId}::uuid AND i.state = 'pending' AND (${opts.claimed} OR i.attempts = 0)
      AND d.id = k.id AND d.dead_at = k.dead_at AND d.status = 'redriving'`;
}

export async function reopenDeadLetters(tx: Tx, ids: bigint[]): Promise<number> {
  if (ids.length === 0) return 0;
  return tx.$executeRaw`UPDATE dead_letters SET status = 'open' WHERE id = ANY(${ids.map(String)}::bigint[]) AND status = 'redriving'`;
}
