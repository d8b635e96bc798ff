// Issue 15, four eyes: a redrive above the source's approval threshold waits for a second person
// whoever starts it, and a backlog cut into tasks just under the threshold counts as one. Through the
// JSON API with personal API tokens, as a lead or an admin would call it.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser } from '@/lib/admin/users';
import { closeDb, db } from '@/lib/db';
import { closeQueues, producerQueue, QUEUES } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { POST as start } from '@/app/api/v1/redrives/route';
import { POST as approve } from '@/app/api/v1/redrives/[id]/approve/route';
import { POST as cancel } from '@/app/api/v1/redrives/[id]/cancel/route';
import { resetDatabase } from '../support/db';
import { ctx, jsonRequest } from './deadletters-world';
import { park, world } from './redrive-support';

type Task = { id: string; status: string };

describe('four eyes on a large redrive', () => {
  let tokens: { lead: string; lead2: string; admin: string; support: string; financeLead: string };
  let ids: string[];
  let orders: string;

  const startAs = async (token: string, selection: unknown) => {
    const r = await start(jsonRequest('/api/v1/redrives', token, { selection, ratePerSecond: 100 }), ctx({}));
    expect(r.status).toBe(201);
    return (await r.json()) as Task;
  };
  const approveAs = (token: string, id: string) => approve(jsonRequest(`/api/v1/redrives/${id}/approve`, token, { reason: 'checked' }), ctx({ id }));

  beforeEach(async () => {
    await resetDatabase();
    const w = await world({ approvalThreshold: 10 });
    ids = await park(w.orders, 30);
    orders = w.orders.name;
    await createUser(SYSTEM, { email: 'lead2@test.local', role: 'lead', team: 'commerce' });
    await createUser(SYSTEM, { email: 'admin@test.local', role: 'admin' });
    await createUser(SYSTEM, { email: 'finance-lead@test.local', role: 'lead', team: 'finance' });
    tokens = {
      lead: (await createPersonalToken(SYSTEM, 'lead@test.local')).token,
      lead2: (await createPersonalToken(SYSTEM, 'lead2@test.local')).token,
      admin: (await createPersonalToken(SYSTEM, 'admin@test.local')).token,
      support: (await createPersonalToken(SYSTEM, 'support@test.local')).token,
      financeLead: (await createPersonalToken(SYSTEM, 'finance-lead@test.local')).token,
    };
  });
  afterAll(async () => {
    await producerQueue(QUEUES.redrive).obliterate({ force: true });
    await closeQueues();
    await closeDb();
  });

  it("a lead's redrive above the threshold waits for another lead of the team; never its starter, nor another team's lead", async () => {
    const task = await startAs(tokens.lead, { source: orders });
    expect(task.status).toBe('pending_approval');
    expect(await db().deadLetter.count({ where: { status: 'open' } })).toBe(30);
    expect((await approveAs(tokens.lead, task.id)).status).toBe(403);
    expect((await approveAs(tokens.financeLead, task.id)).status).toBe(404);
    const ok = await approveAs(tokens.lead2, task.id);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'queued', approvedBy: 'lead2@test.local' });
  });

  it("an admin's redrive above the threshold waits too, and another admin or the team's lead approves it", async () => {
    const task = await startAs(tokens.admin, { source: orders });
    expect(task.status).toBe('pending_approval');
    expect((await approveAs(tokens.admin, task.id)).status).toBe(403);
    expect(await (await approveAs(tokens.lead, task.id)).json()).toMatchObject({ status: 'queued', approvedBy: 'lead@test.local' });
  });

  it('tasks just under the threshold add up: what the same person started on the source in the last hour counts', async () => {
    const first = await startAs(tokens.support, { ids: ids.slice(0, 8) });
    expect(first.status).toBe('queued');
    // The first one is over (it went out); the next eight would make sixteen within the hour.
    await db().redriveTask.update({ where: { id: first.id }, data: { status: 'completed', sent: 8, acknowledged: 8, finishedAt: new Date() } });
    const second = await startAs(tokens.support, { ids: ids.slice(8, 16) });
    expect(second.status).toBe('pending_approval');
    expect((await cancel(jsonRequest(`/api/v1/redrives/${second.id}/cancel`, tokens.support, {}), ctx({ id: second.id }))).status).toBe(200);
    // Another person's tasks are theirs: support's eight do not count toward the lead's.
    const leads = await startAs(tokens.lead, { ids: ids.slice(16, 24) });
    expect(leads.status).toBe('queued');
    // More than an hour ago no longer counts.
    await db().redriveTask.update({ where: { id: leads.id }, data: { status: 'completed', sent: 8, finishedAt: new Date() } });
    await db().redriveTask.updateMany({ where: { id: first.id }, data: { createdAt: new Date(Date.now() - 61 * 60_000) } });
    expect((await startAs(tokens.support, { ids: ids.slice(24, 30) })).status).toBe('queued');
  });

  it('the CLI acting as the system is exempt, and the trail says so', async () => {
    const task = await startRedrive({ ...SYSTEM, label: 'cli' }, { selection: { source: orders }, ratePerSecond: 100 });
    expect(task.status).toBe('queued');
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.start', targetId: task.id } });
    expect(event).toMatchObject({ actorRole: 'system', actorEmail: 'cli', count: 30 });
    expect(event.result).toMatch(/four eyes/i);
  });
});
