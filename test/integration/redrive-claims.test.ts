// The redrive runner's claims (issue 15, "no item sent twice, memory bounded"): a task whose
// destination cannot be built fails with a reason instead of being retried forever, and a claim
// holds a bounded number of payload bytes, not a number of rows.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor } from '@/lib/redrive/supervisor';
import { runRedriveTask } from '@/lib/redrive/run-task';
import { resetDatabase } from '../support/db';
import { park, world } from './redrive-support';

describe('redrive claims', () => {
  beforeEach(resetDatabase);
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

  it('fails a task whose redrive URL was cleared, with the reason, its dead letters open again, and takes it up no more', { timeout: 60_000 }, async () => {
    const w = await world();
    await park(w.partner, 5, { prefix: 'nourl' });
    const task = await startRedrive({ ...SYSTEM, label: 'test' }, { selection: { source: w.partner.name }, ratePerSecond: 100 });
    await db().source.update({ where: { id: w.partner.id }, data: { redriveUrl: null } });

    expect(await runRedriveTask(task.id)).toBe('failed');
    const t = await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } });
    expect(t.status).toBe('failed');
    expect(t.pausedReason).toContain('has no redrive URL');
    expect(t.finishedAt).not.toBeNull();
    expect(await db().deadLetter.count({ where: { sourceId: w.partner.id, status: 'open' } })).toBe(5);
    const fail = await db().auditEvent.findFirstOrThrow({ where: { targetId: task.id, action: 'redrive.fail' } });
    expect(fail.reason).toContain('has no redrive URL');

    // The supervisor does not try it again every 2 s: it is not runnable any more.
    const supervisor = await startRedriveSupervisor({ reconcileMs: 100 });
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect(supervisor.running()).toEqual([]);
    } finally {
      await supervisor.stop();
    }
    expect(await db().auditEvent.count({ where: { targetId: task.id, action: 'redrive.fail' } })).toBe(1);
  });
});
