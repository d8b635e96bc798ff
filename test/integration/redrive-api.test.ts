// The redrive JSON API with personal API tokens: the same checks as the pages, errors as JSON.
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { QUEUES } from '@/lib/queue';
import { GET as list, POST as start } from '@/app/api/v1/redrives/route';
import { GET as preview } from '@/app/api/v1/redrives/preview/route';
import { GET as detail } from '@/app/api/v1/redrives/[id]/route';
import { POST as pause } from '@/app/api/v1/redrives/[id]/pause/route';
import { POST as resume } from '@/app/api/v1/redrives/[id]/resume/route';
import { POST as cancel } from '@/app/api/v1/redrives/[id]/cancel/route';
import { POST as approve } from '@/app/api/v1/redrives/[id]/approve/route';
import { freshDatabase } from '../support/lifecycle';
import { ctx, getRequest, jsonRequest } from './deadletters-world';
import { park, world } from './redrive-support';

describe('redrive JSON API', () => {
  let tokens: { support: string; lead: string; finance: string };
  let ids: string[];
  let orders: string;

  freshDatabase({
    queues: [QUEUES.redrive],
    seed: async () => {
      const w = await world({ approvalThreshold: 20 });
      ids = await park(w.orders, 30);
      orders = w.orders.name;
      tokens = {
        support: (await createPersonalToken(SYSTEM, 'support@test.local')).token,
        lead: (await createPersonalToken(SYSTEM, 'lead@test.local')).token,
        finance: (await createPersonalToken(SYSTEM, 'finance-support@test.local')).token,
      };
    },
  });

  it('previews, starts (201), reads, pauses, resumes and cancels a task', async () => {
    const p = await preview(getRequest(`/api/v1/redrives/preview?ids=${ids.slice(0, 5).join(',')}`, tokens.support), ctx({}));
    expect(p.status).toBe(200);
    expect(await p.json()).toMatchObject({ count: 5, source: { name: orders }, needsApproval: false, activeTaskId: null });

    const r = await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: { ids: ids.slice(0, 5) }, canary: true, reason: 'fixed' }), ctx({}));
    expect(r.status).toBe(201);
    const task = (await r.json()) as { id: string; status: string; ratePerSecond: number; counts: { total: number }; canary: boolean };
    expect(task).toMatchObject({ status: 'queued', ratePerSecond: 10, canary: true, counts: { total: 5 } });
    // The outcome windows by default: 10 minutes, the canary's 60 s.
    expect(task).toMatchObject({ outcomeWindowSeconds: 600, canaryWindowSeconds: 60 });
    expect(r.headers.get('location')).toBe(`/api/v1/redrives/${task.id}`);

    const again = await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: { source: orders }, ratePerSecond: 50 }), ctx({}));
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'conflict', details: { activeTaskId: task.id } } });

    const got = await detail(getRequest(`/api/v1/redrives/${task.id}`, tokens.support), ctx({ id: task.id }));
    expect(await got.json()).toMatchObject({ id: task.id, counts: { total: 5, sent: 0, pending: 5 }, history: [{ action: 'redrive.start', reason: 'fixed' }] });

    const empty = (verb: string) =>
      new Request(`http://triage.test/api/v1/redrives/${task.id}/${verb}`, { method: 'POST', headers: { authorization: `Bearer ${tokens.support}` } });
    expect(await (await pause(empty('pause'), ctx({ id: task.id }))).json()).toMatchObject({ status: 'paused', pausedReason: 'Paused by support@test.local' });
    expect((await pause(empty('pause'), ctx({ id: task.id }))).status).toBe(409);
    expect(await (await resume(empty('resume'), ctx({ id: task.id }))).json()).toMatchObject({ status: 'running', pausedReason: null });
    const c = await cancel(jsonRequest(`/api/v1/redrives/${task.id}/cancel`, tokens.support, { reason: 'not today' }), ctx({ id: task.id }));
    expect(await c.json()).toMatchObject({ status: 'cancelled' });

    const page = await list(getRequest('/api/v1/redrives?status=cancelled', tokens.support), ctx({}));
    expect(((await page.json()) as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('keeps teams apart and validates the input', async () => {
    const r = await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: { ids: ids.slice(0, 2) }, ratePerSecond: 5 }), ctx({}));
    const { id } = (await r.json()) as { id: string };
    expect((await detail(getRequest(`/api/v1/redrives/${id}`, tokens.finance), ctx({ id }))).status).toBe(404);
    expect((await pause(jsonRequest(`/api/v1/redrives/${id}/pause`, tokens.finance, {}), ctx({ id }))).status).toBe(404);
    expect((await detail(getRequest('/api/v1/redrives/not-a-uuid', tokens.support), ctx({ id: 'not-a-uuid' }))).status).toBe(404);
    const bad = await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: { source: orders }, ratePerSecond: 0 }), ctx({}));
    expect(bad.status).toBe(422);
    expect((await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: {} }), ctx({}))).status).toBe(422);
    expect((await preview(getRequest(`/api/v1/redrives/preview?source=${orders}`, tokens.finance), ctx({}))).status).toBe(404);
  });

  it('takes the outcome windows at start and shows them; refuses a window out of range', async () => {
    const r = await start(
      jsonRequest('/api/v1/redrives', tokens.support, {
        selection: { ids: ids.slice(0, 3) },
        canary: true,
        outcomeWindowSeconds: 120,
        canaryWindowSeconds: 15,
      }),
      ctx({}),
    );
    expect(r.status).toBe(201);
    const task = (await r.json()) as { id: string };
    expect(task).toMatchObject({ outcomeWindowSeconds: 120, canaryWindowSeconds: 15, counts: { noDeathSeen: 0 } });
    const got = await detail(getRequest(`/api/v1/redrives/${task.id}`, tokens.support), ctx({ id: task.id }));
    expect(await got.json()).toMatchObject({ outcomeWindowSeconds: 120, canaryWindowSeconds: 15, outcomesDueAt: null, history: [{ action: 'redrive.start' }] });
    for (const bad of [{ outcomeWindowSeconds: 0 }, { outcomeWindowSeconds: 8 * 24 * 3600 }, { canaryWindowSeconds: 1.5 }]) {
      const res = await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: { ids: ids.slice(3, 5) }, ...bad }), ctx({}));
      expect(res.status).toBe(422);
    }
  });

  it('a large redrive by support waits; a lead approves it, the starter cannot', async () => {
    const r = await start(jsonRequest('/api/v1/redrives', tokens.support, { selection: { source: orders }, ratePerSecond: 100 }), ctx({}));
    const task = (await r.json()) as { id: string; status: string };
    expect(task.status).toBe('pending_approval');
    expect((await approve(jsonRequest(`/api/v1/redrives/${task.id}/approve`, tokens.support, {}), ctx({ id: task.id }))).status).toBe(403);
    const ok = await approve(jsonRequest(`/api/v1/redrives/${task.id}/approve`, tokens.lead, { reason: 'looked at the fix' }), ctx({ id: task.id }));
    expect(await ok.json()).toMatchObject({ status: 'queued', approvedBy: 'lead@test.local' });
  });
});
