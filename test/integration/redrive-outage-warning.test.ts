// A redrive of dead letters from an outage whose errors still arrive (seed 004 §9: "Do NOT redrive"
// into a downstream that is still broken), whatever selects them (ids, cluster, filter, source), and
// of any selection of a source whose alarms say outage: the preview warns, the API refuses it
// without a lead's confirmation (422 naming the field), and a confirmed start is audited with its
// reason. Poison, or an outage whose errors stopped, asks nothing.
import { describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { MINUTE, manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { QUEUES } from '@/lib/queue';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { cancelRedrive, previewRedrive, redriveSelection, startRedrive, type RedriveSelectionInput } from '@/lib/redrive';
import { POST as start } from '@/app/api/v1/redrives/route';
import { GET as preview } from '@/app/api/v1/redrives/preview/route';
import { freshDatabase } from '../support/lifecycle';
import { ctx, getRequest, jsonRequest } from './deadletters-world';
import { park, world, type World } from './redrive-support';

const clusterOf = async (id: string) => (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { clusterId: true } })).clusterId!;
const DOWN = 'member service answered 503 Service Unavailable';

interface Picked {
  ids: string[];
  cluster: string;
  source: string;
}
/**
 * One example of every selection kind the API takes (the options of `redriveSelection`), each over the
 * same dead letters; the first test checks that none is missing.
 */
const SELECTION_KINDS: Record<string, (p: Picked) => RedriveSelectionInput> = {
  ids: (p) => ({ ids: p.ids }),
  cluster: (p) => ({ cluster: p.cluster, source: p.source }),
  filter: (p) => ({ filter: { source: p.source } }),
  source: (p) => ({ source: p.source }),
};

/** Support may redrive, but a lead confirms an outage's: support's confirmed start is refused, and no task is written. */
async function expectSupportRefused(w: World, selection: RedriveSelectionInput, reason: string): Promise<void> {
  await expect(startRedrive(w.support, { selection, outageConfirmed: true, reason })).rejects.toMatchObject({ code: 'forbidden' });
  expect(await db().redriveTask.count()).toBe(0);
}

/** The audit event of a lead's confirmed start: the lead's reason, and the outage it confirmed. */
async function expectConfirmedStartAudited(taskId: string, reason: string, clusterId: string): Promise<void> {
  const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.start', targetId: taskId } });
  expect(event).toMatchObject({ actorEmail: 'lead@test.local', reason });
  expect(event.after).toMatchObject({ outageConfirmed: { clusterId, verdict: 'outage', errorClass: 'transient' } });
}

describe('redrive of an outage whose errors still arrive', () => {
  freshDatabase({ queues: [QUEUES.redrive] });

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
    await expectSupportRefused(w, selection, 'looks fine to me');

    const reason = 'member service status page: resolved at 03:44, live traffic healthy for 20 minutes';
    const ok = await start(jsonRequest('/api/v1/redrives', lead, { selection, outageConfirmed: true, reason, ratePerSecond: 5 }), ctx({}));
    expect(ok.status).toBe(201);
    const task = (await ok.json()) as { id: string };
    await expectConfirmedStartAudited(task.id, reason, cluster);
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

  it('knows every selection kind the API takes', () => {
    const examples = Object.values(SELECTION_KINDS).map((f) => f({ ids: ['1'], cluster: '00000000-0000-4000-8000-000000000000', source: 'orders' }));
    for (const option of redriveSelection.options) {
      expect(
        examples.filter((e) => option.safeParse(e).success),
        `an example of ${JSON.stringify(Object.keys(option.shape))}`,
      ).toHaveLength(1);
    }
    expect(examples).toHaveLength(redriveSelection.options.length);
  });

  for (const [kind, select] of Object.entries(SELECTION_KINDS)) {
    it(`warns of the arriving outage and asks a lead's confirmation for a selection by ${kind}`, async () => {
      const w = await world();
      const ids = await park(w.orders, 4, { prefix: 'down', errorMessage: DOWN });
      const cluster = await clusterOf(ids[0]!);
      const selection = select({ ids, cluster, source: w.orders.name });

      expect(await previewRedrive(w.lead, selection)).toMatchObject({ count: 4, outage: { clusterId: cluster, verdict: 'outage', errorClass: 'transient' } });
      await expect(startRedrive(w.lead, { selection, reason: 'try again' })).rejects.toMatchObject({
        code: 'unprocessable',
        details: { field: 'outageConfirmed' },
      });
      await expect(startRedrive(w.lead, { selection, outageConfirmed: true })).rejects.toMatchObject({ code: 'unprocessable', details: { field: 'reason' } });
      await expectSupportRefused(w, selection, 'looks fine');

      const reason = 'member service healthy on live traffic for 20 minutes';
      const task = await startRedrive(w.lead, { selection, outageConfirmed: true, reason });
      expect(task.total).toBe(4);
      await expectConfirmedStartAudited(task.id, reason, cluster);
    });
  }

  it('warns of a source whose alarms say outage, even for its poison dead letters', async () => {
    const w = await world();
    const poisonIds = await park(w.orders, 2, { prefix: 'gift' });
    const poison = await clusterOf(poisonIds[0]!);
    await park(w.orders, 5, { prefix: 'down', errorMessage: DOWN });
    await evaluateAlarms();
    const states = await db().alarmState.findMany({ where: { sourceId: w.orders.id, label: 'outage' } });
    expect(states.length).toBeGreaterThan(0);

    for (const selection of [{ ids: poisonIds }, { cluster: poison, source: w.orders.name }]) {
      expect(await previewRedrive(w.lead, selection)).toMatchObject({ count: 2, outage: { verdict: 'outage', errorClass: 'transient' } });
      await expect(startRedrive(w.lead, { selection })).rejects.toMatchObject({ code: 'unprocessable', details: { field: 'outageConfirmed' } });
    }
    const task = await startRedrive(w.lead, {
      selection: { ids: poisonIds },
      outageConfirmed: true,
      reason: 'the downstream recovered; these two are poison and were fixed',
    });
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.start', targetId: task.id } });
    expect(event.after).toMatchObject({ outageConfirmed: { verdict: 'outage', errorClass: 'transient' } });
  });
});
