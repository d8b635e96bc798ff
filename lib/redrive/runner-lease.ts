// One runner per task, in Postgres itself: the task row names its runner and how long that
// runner's lease lasts. The supervisor's advisory lock keeps a second runner from starting, but it
// is gone the moment its session drops (a Postgres restart) while the first runner may still be
// sending; the lease is not, so a second runner only takes over once the first has let go or
// stopped renewing. Claims go through the lease (run-task.ts), so a runner that lost it claims
// nothing more.
import { db } from '@/lib/db';

/** How long a lease lasts unrenewed: a killed runner's task is taken up again after at most this. */
export const RUNNER_LEASE_MS = 10_000;
/** Renewed this often by the runner's status poll. */
export const RUNNER_RENEW_MS = 3_000;

/** Take the task for `runner` if nobody holds it; false when another runner's lease is live. */
export async function takeRunnerLease(taskId: string, runner: string): Promise<boolean> {
  const rows = await db().$queryRaw<{ id: string }[]>`
    UPDATE redrive_tasks SET runner_id = ${runner}::uuid, runner_lease_until = now() + ${RUNNER_LEASE_MS} * interval '1 millisecond'
    WHERE id = ${taskId}::uuid AND status IN ('queued', 'running')
      AND (runner_id IS NULL OR runner_id = ${runner}::uuid OR runner_lease_until < now())
    RETURNING id`;
  return rows.length > 0;
}

/** Extend the lease; false when it is no longer this runner's (it lapsed and another took it). */
export async function renewRunnerLease(taskId: string, runner: string): Promise<boolean> {
  const n = await db().$executeRaw`
    UPDATE redrive_tasks SET runner_lease_until = now() + ${RUNNER_LEASE_MS} * interval '1 millisecond'
    WHERE id = ${taskId}::uuid AND runner_id = ${runner}::uuid`;
  return n > 0;
}

export async function releaseRunnerLease(taskId: string, runner: string): Promise<void> {
  await db().$executeRaw`UPDATE redrive_tasks SET runner_id = NULL, runner_lease_until = NULL WHERE id = ${taskId}::uuid AND runner_id = ${runner}::uuid`;
}
