// One approval rule for every task: redrive, edit and transform tasks add what the same person
// started on the source in the last hour to the threshold, whatever their role; the approver is
// neither the starter, nor the last person who enabled the rule that started the task, nor someone
// acting through a token the starter minted.
import { describe, expect, it } from 'vitest';
import { SYSTEM, type Actor } from '@/lib/auth';
import { actorFromPersonalToken } from '@/lib/auth/actor';
import { createPersonalToken } from '@/lib/admin/tokens';
import { db } from '@/lib/db';
import { AppError } from '@/lib/errors';
import { approveRedrive, startRedrive } from '@/lib/redrive';
import { startTransform } from '@/lib/redrive/edit';
import { createRedriveRule, updateRedriveRule } from '@/lib/redrive-rules';
import { freshDatabase } from '../support/lifecycle';
import { park, person, world, type World } from './redrive-support';

let w: World;

async function status(p: Promise<unknown>): Promise<number> {
  return p.then(
    () => 200,
    (e: unknown) => {
      expect(e).toBeInstanceOf(AppError);
      return (e as AppError).status;
    },
  );
}

/** A task that went out whole: what its starter redrove counts for the hour. */
const finished = (id: string) => db().$executeRaw`UPDATE redrive_tasks SET status = 'completed', sent = total, finished_at = now() WHERE id = ${id}::uuid`;

/** `who` starts a transform that removes the gift field of dead letters `ids`. */
const removeGift = (who: Actor, ids: string[], reason: string) =>
  startTransform(who, { selection: { ids }, transform: [{ op: 'remove', path: '$.gift' }], reason, ratePerSecond: 50 });

/** A transform by `who` that needed no approval (queued) and went out whole: it counts for the hour. */
async function transformedWhole(who: Actor, ids: string[]): Promise<void> {
  const t = await removeGift(who, ids, 'v2 schema');
  expect(t.task.status).toBe('queued');
  await finished(t.task.id);
}

describe('one approval rule for every task', () => {
  freshDatabase({
    seed: async () => {
      w = await world({ approvalThreshold: 3 });
      await db().source.updateMany({ data: { editApprovalThreshold: 100 } });
    },
  });

  it("a lead's transforms add up over the hour: a large change cut into small tasks waits", async () => {
    const ids = await park(w.orders, 6);
    await transformedWhole(w.lead, ids.slice(0, 3));
    const second = await removeGift(w.lead, ids.slice(3, 5), 'v2 schema, the rest');
    expect(second.task.status).toBe('pending_approval');
    expect(second.waitsFor).toMatch(/2 \+ 3 started by the same person in the last hour > threshold 3/);
  });

  it('edits and plain redrives count toward one hour for the same person', async () => {
    const ids = await park(w.orders, 6);
    await transformedWhole(w.support, ids.slice(0, 3));
    const plain = await startRedrive(w.support, { selection: { ids: ids.slice(3, 4) }, reason: 'one more' });
    expect(plain.status).toBe('pending_approval');
  });

  it('the lead who enabled a colleague\u2019s rule cannot approve the task it starts', async () => {
    await park(w.orders, 5);
    const enabler = await person('lead2@test.local', 'lead', 'commerce');
    const other = await person('lead3@test.local', 'lead', 'commerce');
    const rule = await createRedriveRule(SYSTEM, w.orders.name, { name: 'after fixes', kind: 'on_resolved', author: w.lead.email, enabled: false });
    await updateRedriveRule(enabler, w.orders.name, rule.id, { enabled: true });
    const task = await startRedrive({ ...w.lead, via: 'rule' }, { selection: { source: w.orders.name }, reason: 'rule' }, undefined, {
      ruleId: rule.id,
      ruleName: rule.name,
    });
    expect(task.status).toBe('pending_approval');
    expect(await status(approveRedrive(enabler, task.id))).toBe(403);
    expect(await status(approveRedrive(w.lead, task.id))).toBe(403);
    expect(await status(approveRedrive(other, task.id))).toBe(200);
  });

  it('an admin cannot approve their own task through a token they minted for a lead', async () => {
    await park(w.orders, 5);
    const admin = await person('admin@test.local', 'admin');
    const task = await startRedrive(admin, { selection: { source: w.orders.name }, reason: 'big one' });
    expect(task.status).toBe('pending_approval');
    const { token } = await createPersonalToken(admin, w.lead.email, 'for the approval');
    const asLead = (await actorFromPersonalToken(token))!;
    expect(asLead).toMatchObject({ email: w.lead.email, via: 'token' });
    expect(await status(approveRedrive(asLead, task.id))).toBe(403);
    // The lead, on their own session (or a token they did not get from the starter), may.
    expect(await status(approveRedrive(w.lead, task.id))).toBe(200);
  });
});
