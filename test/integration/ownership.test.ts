// Ownership of a cause: assign, hold, resolve, notes; the inbox filters; the regression reopen; the
// team webhook on assignment. (The role matrix for each endpoint and action is in test/security.)
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { db } from '@/lib/db';
import { listClusters } from '@/lib/clustering/list-clusters';
import { addClusterNote, getOwnership, updateOwnership } from '@/lib/ownership/ownership';
import { manualClock } from '@/lib/clock';
import { createWebhook } from '@/lib/notifications/webhooks';
import { SYSTEM } from '@/lib/auth';
import * as ownershipRoute from '@/app/api/v1/clusters/[id]/ownership/route';
import { principal } from '../security/fixtures';
import { seededFixtures } from '../security/lifecycle';
import { poisonCluster } from './cluster-support';

const fx = seededFixtures();
const as = (email: string) => principal(fx.users[email]!);
const DAY = 86_400_000;

const poison = (source: 'orders' | 'payments', message: string, n = 1, tag = '') => poisonCluster(fx, source, message, n, tag);

async function patch(email: string, id: string, body: unknown) {
  const res = await ownershipRoute.PATCH(
    new Request(`http://127.0.0.1:3000/api/v1/clusters/${id}/ownership`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${fx.users[email]!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { params: Promise.resolve({ id }) },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('ownership of a cause', () => {
  it('assigns, audits and notifies the assignee team webhook in the same transaction', async () => {
    const c = await poison('orders', 'quota exceeded', 2);
    await createWebhook({ ...SYSTEM, label: 'test' }, { url: 'http://127.0.0.1:9/hook', team: 'commerce' });
    const r = await updateOwnership(as('lead@triage.local'), c, {
      assignee: 'support@triage.local',
      status: 'investigating',
      ticketUrl: 'https://jira.example/T-1',
    });
    expect(r).toMatchObject({ status: 'investigating', assignee: { email: 'support@triage.local' }, ticketUrl: 'https://jira.example/T-1' });
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'cluster.own', targetId: c } });
    expect(ev).toMatchObject({ actorEmail: 'lead@triage.local', teamId: fx.teams.commerce, sourceId: fx.sources.orders.id });
    expect(ev.after).toMatchObject({ status: 'investigating', assignee: { email: 'support@triage.local' } });
    const deliveries = await db().webhookDelivery.findMany({ where: { event: 'cluster.assign' } });
    expect(deliveries).toHaveLength(1);
    expect(JSON.stringify(deliveries[0]!.body)).toContain('support@triage.local');

    const mine = await listClusters(as('support@triage.local'), { owner: 'mine' });
    expect(mine.clusters.map((x) => x.id)).toEqual([c]);
    expect(mine.clusters[0]!.ownership).toMatchObject({ status: 'investigating', assignee: 'support@triage.local' });
    const unassigned = await listClusters(as('support@triage.local'), { owner: 'unassigned' });
    expect(unassigned.clusters.map((x) => x.id)).not.toContain(c);
  });

  it('puts on hold only with a note and an end date, and lists it as on hold', async () => {
    const c = await poison('orders', 'partner maintenance');
    const lead = as('lead@triage.local');
    await expect(updateOwnership(lead, c, { status: 'on_hold', holdUntil: new Date(Date.now() + DAY) })).rejects.toMatchObject({ status: 422 });
    await expect(updateOwnership(lead, c, { status: 'on_hold', note: 'partner down' })).rejects.toMatchObject({ status: 422 });
    await expect(updateOwnership(lead, c, { status: 'on_hold', note: 'partner down', holdUntil: new Date(Date.now() - DAY) })).rejects.toMatchObject({
      status: 422,
    });
    const bad = await patch('lead@triage.local', c, { status: 'on_hold' });
    expect(bad.status).toBe(422);
    const until = new Date(Date.now() + 2 * DAY);
    const ok = await patch('lead@triage.local', c, { status: 'on_hold', note: 'partner down until Thursday', holdUntil: until.toISOString() });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'on_hold', holdUntil: until.toISOString() });
    const onHold = await listClusters(as('support@triage.local'), { owner: 'on_hold' });
    expect(onHold.clusters.map((x) => x.id)).toEqual([c]);
    const full = await getOwnership(as('support@triage.local'), c);
    expect(full.notes.map((n) => n.body)).toEqual(['partner down until Thursday']);
    await addClusterNote(as('support@triage.local'), c, { body: 'asked the partner' });
    expect((await getOwnership(as('auditor@triage.local'), c)).notes.map((n) => n.author)).toEqual(['lead@triage.local', 'support@triage.local']);
  });

  it('refuses the auditor, hides another team’s cluster, and refuses an assignee of another team', async () => {
    const c = await poison('orders', 'refused things');
    await expect(updateOwnership(as('auditor@triage.local'), c, { status: 'investigating' })).rejects.toMatchObject({ status: 403 });
    await expect(addClusterNote(as('auditor@triage.local'), c, { body: 'x' })).rejects.toMatchObject({ status: 403 });
    await expect(updateOwnership(as('finance-lead@triage.local'), c, { status: 'investigating' })).rejects.toMatchObject({ status: 404 });
    await expect(addClusterNote(as('finance-support@triage.local'), c, { body: 'x' })).rejects.toMatchObject({ status: 404 });
    await expect(updateOwnership(as('lead@triage.local'), c, { assignee: 'finance-support@triage.local' })).rejects.toMatchObject({ status: 422 });
    expect(await db().auditEvent.count({ where: { targetId: c } })).toBe(0);
  });

  it('reopens a resolved cluster when new dead letters arrive, and says so on the cluster and the audit trail', async () => {
    const c = await poison('orders', 'schema drift', 1, 'a');
    const clock = manualClock(new Date());
    await updateOwnership(as('lead@triage.local'), c, { status: 'resolved', fixVersion: '2.4.1', note: 'fixed the mapper' }, clock);
    expect((await getOwnership(as('support@triage.local'), c)).status).toBe('resolved');
    // A duplicate of a stored message is no new dead letter: it does not reopen.
    await poison('orders', 'schema drift', 1, 'a');
    expect((await getOwnership(as('support@triage.local'), c)).status).toBe('resolved');
    await poison('orders', 'schema drift', 1, 'b');
    const after = await getOwnership(as('support@triage.local'), c);
    expect(after.status).toBe('open');
    expect(after.regressedAt).not.toBeNull();
    const ev = await db().auditEvent.findFirstOrThrow({ where: { action: 'cluster.regression', targetId: c } });
    expect(ev).toMatchObject({ actorEmail: 'system', teamId: fx.teams.commerce });
    expect(ev.before).toMatchObject({ status: 'resolved', fixVersion: '2.4.1' });
  });

  it('runs from the CLI: cluster own, note and show', async () => {
    const c = await poison('orders', 'cli owned');
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', ...args, '--json'], { encoding: 'utf8', env: process.env });
    const own = cli('cluster', 'own', '--cluster', c, '--assignee', 'lead@triage.local', '--status', 'waiting_for_fix', '--ticket', 'https://jira.example/T-9');
    expect(own.status, own.stderr).toBe(0);
    expect(JSON.parse(own.stdout)).toMatchObject({ status: 'waiting_for_fix', assignee: { email: 'lead@triage.local' } });
    expect(cli('cluster', 'own', '--cluster', c, '--status', 'on_hold').status).not.toBe(0);
    expect(cli('cluster', 'note', '--cluster', c, '--note', 'vendor ticket opened').status).toBe(0);
    const show = cli('cluster', 'show', '--cluster', c);
    expect(JSON.parse(show.stdout)).toMatchObject({
      status: 'waiting_for_fix',
      ticketUrl: 'https://jira.example/T-9',
      notes: [{ author: 'cli', body: 'vendor ticket opened' }],
    });
    expect(await db().auditEvent.count({ where: { targetId: c, actorEmail: 'cli' } })).toBe(2);
  });
});
