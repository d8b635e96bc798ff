// A redrive of a cluster that is an outage whose errors still arrive (seed 004 §9: "Do NOT redrive"
// into a downstream that is still broken): the preview warns, the API refuses it without a lead's
// confirmation (422 naming the field), and a confirmed start is audited with its reason. Poison, or
// an outage whose errors stopped, asks nothing.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { MINUTE, manualClock } from '@/lib/clock';
import { closeDb, db } from '@/lib/db';
import { closeQueues, producerQueue, QUEUES } from '@/lib/queue';
import { cancelRedrive, previewRedrive, startRedrive } from '@/lib/redrive';
import { POST as start } from '@/app/api/v1/redrives/route';
import { GET as preview } from '@/app/api/v1/redrives/preview/route';
import { resetDatabase } from '../support/db';
import { ctx, getRequest, jsonRequest } from './deadletters-world';
import { park, world } from './redrive-support';

const clusterOf = async (id: string) => (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { clusterId: true } })).clusterId!;
const DOWN = 'member service answered 503 Service Unavailable';

describe('redrive of an outage whose errors still arrive', () => {
  beforeEach(resetDatabase);
  afterAll(async () => {
    await producerQueue(QUEUES.redrive).obliterate({ force: true });
    await closeQueues();
    await closeDb();
  });

  it('warns, refuses without a lead’s confirmation and a reason, and audits the confirmed start', async () => {
    const w = await world();
    const ids = await park(w.orders, 5, { prefix: 'down', errorMessage: DOWN });
    const cluster = await clusterOf(ids[0]!);
    const selection = { cluster, source: w.orders.name };
    const lead = (await createPersonalToken(SYSTEM, 'lead@test.local')).token;

    const p = await preview(getRequest(`/api/v1/redrives/preview?cluster=${cluster}&source=${w.orders.name}`, lead), ctx({}));
    expect(p.status).toBe(200);
    expect(await p.json()).toMatchObject({ count: 5, outage: { clusterId: cluster, verdict: 'outage', errorClass: 'transient' } });

    // Without the confirmation: 422 naming the field, and nothing written.
    const refused = await start(jsonRequest('/api/v1/redrives', lead, { selection, reason: 'try again' }), ctx({}));
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { error: { message: string; details: { field: string } } };
    expect(body.error.details.field).toBe('outageConfirmed');
    expect(body.error.message).toMatch(/outage.*still arriv/i);
    // Confirmed, but without a reason: the reason is what the trail keeps.
    const noReason = await start(jsonRequest('/api/v1/redrives', lead, { selection, outageConfirmed: true }), ctx({}));
    expect(noReason.status).toBe(422);
    expect(((await noReason.json()) as { error: { details: { field: string } } }).error.details.field).toBe('reason');
    // Support may redrive, but a lead confirms an outage's.
    await expect(startRedrive(w.support, { selection, outageConfirmed: true, reason: 'looks fine to me' })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await db().redriveTask.count()).toBe(0);

    const reason = 'member service status page: resolved at 03:44, live traffic healthy for 20 minutes';
    const ok = await start(jsonRequest('/api/v1/redrives', lead, { selection, outageConfirmed: true, reason, ratePerSecond: 5 }), ctx({}));
    expect(ok.status).toBe(201);
    const task = (await ok.json()) as { id: string };
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.start', targetId: task.id } });
    expect(event).toMatchObject({ actorEmail: 'lead@test.local', reason });
    expect(event.after).toMatchObject({ outageConfirmed: { clusterId: cluster, verdict: 'outage', errorClass: 'transient' } });
  });

  it('asks nothing of a poison cluster, or of an outage whose errors stopped', async () => {
    const w = await world();
    const poison = await clusterOf((await park(w.orders, 3, { prefix: 'gift' }))[0]!);
    expect(await previewRedrive(w.support, { cluster: poison, source: w.orders.name })).toMatchObject({ count: 3, outage: null });
    const t = await startRedrive(w.support, { selection: { cluster: poison, source: w.orders.name } });
    expect(t.total).toBe(3);
    await cancelRedrive(w.lead, t.id, { reason: 'next case' });

    const down = await clusterOf((await park(w.orders, 3, { prefix: 'down', errorMessage: DOWN }))[0]!);
    const later = manualClock(new Date(Date.now() + 11 * MINUTE));
    expect(await previewRedrive(w.support, { cluster: down, source: w.orders.name }, later)).toMatchObject({ outage: null });
    expect((await startRedrive(w.support, { selection: { cluster: down, source: w.orders.name } }, later)).total).toBe(3);
  });
});
