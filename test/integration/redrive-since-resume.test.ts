// "Did it work?" after a fix: a task whose canary died before the fix, paused, then resumed, is
// judged on what was sent since the latest resume, with what came before it counted apart (the
// canary's death is not the fix's). The sends and outcomes are written as the runner writes them.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { MINUTE } from '@/lib/clock';
import { pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { getRedriveTask, pauseRedrive, resumeRedrive, startRedrive } from '@/lib/redrive';
import { deadLetter, demoWorld } from './sla-fixtures';

/** Items `seqs` sent at `sentAt` with outcome `state`, and the task's counters with them. */
async function settle(taskId: string, seqs: number[], state: 'acknowledged' | 'dead_again', sentAt: Date) {
  await pg()`UPDATE redrive_items SET state = ${state}, sent_at = ${sentAt}, outcome_at = ${sentAt}, attempts = 1
    WHERE task_id = ${taskId}::uuid AND seq = ANY(${seqs}::int[])`;
  const column = state === 'acknowledged' ? pg()`acknowledged = acknowledged + ${seqs.length}` : pg()`dead_again = dead_again + ${seqs.length}`;
  await pg()`UPDATE redrive_tasks SET sent = sent + ${seqs.length}, ${column} WHERE id = ${taskId}::uuid`;
}

describe('did it work, after a resume', () => {
  freshDatabase();

  it('counts the outcomes since the latest resume apart from those before it', async () => {
    const { users, sources } = await demoWorld();
    const rows = await recordDeadLetters(
      sources.orders,
      Array.from({ length: 4 }, (_, i) => deadLetter({ deadAt: new Date(Date.now() - 10 * MINUTE + i) })),
    );
    const task = await startRedrive(users.lead, { selection: { ids: rows.map((r) => r.id) }, ratePerSecond: 1, canary: true, reason: 'gift fixed?' });
    // The canary died before the fix; the breaker paused the task.
    await settle(task.id, [1], 'dead_again', new Date(Date.now() - 2 * MINUTE));
    await pauseRedrive(users.lead, task.id, { reason: 'the canary died' });
    expect((await getRedriveTask(users.lead, task.id)).sinceResume).toBeNull();

    await resumeRedrive(users.lead, task.id, { reason: 'handler v2 deployed' });
    await settle(task.id, [2, 3, 4], 'acknowledged', new Date(Date.now() + 1000));
    const t = await getRedriveTask(users.lead, task.id);
    expect(t.verdict).toBe('mixed');
    expect(t.sinceResume).toMatchObject({
      verdict: 'worked',
      counts: { sent: 3, acknowledged: 3, deadAgain: 0, noDeathSeen: 0, failed: 0 },
      before: { sent: 1, acknowledged: 0, deadAgain: 1, noDeathSeen: 0, failed: 0 },
    });
    expect(Date.parse(t.sinceResume!.resumedAt)).toBeLessThanOrEqual(Date.now());
  });
});
