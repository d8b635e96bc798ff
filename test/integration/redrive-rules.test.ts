// Redrive rules: a lead's rule starts an ordinary redrive task for them once a wave is over
// (the rate alarm OK for N after it) or a cluster is resolved with a fix version; once per trigger,
// one active task per source, four eyes as for anyone, and a rule whose task trips the breaker
// disables itself. Time moves on the injected clock: nothing here waits minutes.
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM, type Actor } from '@/lib/auth';
import { createPersonalToken } from '@/lib/admin/tokens';
import { createUser } from '@/lib/admin/users';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { manualClock, MINUTE, SECOND } from '@/lib/clock';
import { db } from '@/lib/db';
import { QUEUES } from '@/lib/queue';
import { cancelRedrive, startRedrive } from '@/lib/redrive';
import { runRedriveTask } from '@/lib/redrive/run-task';
import { updateOwnership } from '@/lib/ownership/ownership';
import { createRedriveRule, evaluateRedriveRules } from '@/lib/redrive-rules';
import { GET as listRules, POST as createRule } from '@/app/api/v1/sources/[source]/redrive-rules/route';
import { DELETE as deleteRule, PATCH as patchRule } from '@/app/api/v1/sources/[source]/redrive-rules/[rule]/route';
import { auditTrail, whoDidWhat } from '../support/audit';
import { freshDatabase } from '../support/lifecycle';
import { ctx, getRequest, jsonRequest } from './deadletters-world';
import { park, person, receiver, world, type Receiver, type World } from './redrive-support';

const AFTER_WAVE = { name: 'after the wave', kind: 'after_wave', okForSeconds: 120, ratePerSecond: 50, canary: true } as const;

describe('redrive rules', () => {
  let w: World;
  let financeLead: Actor;
  let http: Receiver | undefined;

  const clusterOf = async (deadLetterId: string) => (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(deadLetterId) } })).clusterId!;
  const tasksOf = (sourceId: string) => db().redriveTask.findMany({ where: { sourceId }, orderBy: { createdAt: 'asc' } });

  freshDatabase({
    queues: [QUEUES.redrive],
    seed: async () => {
      w = await world();
      financeLead = await person('finance-lead@test.local', 'lead', 'finance');
    },
  });
  afterEach(async () => {
    await http?.close();
    http = undefined;
  });

  it("is a lead's: the auditor and support are refused, another team's lead gets 404, every change is audited", async () => {
    await createUser(SYSTEM, { email: 'auditor@test.local', role: 'auditor' });
    const token = async (email: string) => (await createPersonalToken(SYSTEM, email)).token;
    const [lead, support, auditor, finance] = await Promise.all(
      ['lead@test.local', 'support@test.local', 'auditor@test.local', 'finance-lead@test.local'].map(token),
    );
    const path = `/api/v1/sources/${w.orders.name}/redrive-rules`;
    const params = ctx({ source: w.orders.name });

    expect((await createRule(jsonRequest(path, auditor, AFTER_WAVE), params)).status).toBe(403);
    expect((await createRule(jsonRequest(path, support, AFTER_WAVE), params)).status).toBe(403);
    expect((await createRule(jsonRequest(path, finance, AFTER_WAVE), params)).status).toBe(404);
    // Bad input: a clear 422 naming the field, nothing written.
    const bad = await createRule(jsonRequest(path, lead, { name: 'x', kind: 'after_wave' }), params);
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('okForSeconds');
    expect(await db().redriveRule.count()).toBe(0);

    const created = await createRule(jsonRequest(path, lead, AFTER_WAVE), params);
    expect(created.status).toBe(201);
    const rule = (await created.json()) as { id: string; author: string; enabled: boolean };
    expect(rule).toMatchObject({ author: 'lead@test.local', enabled: true, kind: 'after_wave', okForSeconds: 120 });
    expect((await createRule(jsonRequest(path, lead, AFTER_WAVE), params)).status).toBe(409);

    // Support and the auditor read the rules; another team's lead does not see them.
    expect(await (await listRules(getRequest(path, support), params)).json()).toMatchObject({ rules: [{ id: rule.id }] });
    expect((await listRules(getRequest(path, auditor), params)).status).toBe(200);
    expect((await listRules(getRequest(path, finance), params)).status).toBe(404);

    const one = `${path}/${rule.id}`;
    const ruleParams = ctx({ source: w.orders.name, rule: rule.id });
    expect((await patchRule(jsonRequest(one, support, { enabled: false }, { method: 'PATCH' }), ruleParams)).status).toBe(403);
    expect((await patchRule(jsonRequest(one, finance, { enabled: false }, { method: 'PATCH' }), ruleParams)).status).toBe(404);
    expect((await deleteRule(jsonRequest(one, finance, {}, { method: 'DELETE' }), ruleParams)).status).toBe(404);
    const off = await patchRule(jsonRequest(one, lead, { enabled: false }, { method: 'PATCH' }), ruleParams);
    expect(await off.json()).toMatchObject({ enabled: false, disabledReason: 'Disabled by lead@test.local' });
    expect(await (await patchRule(jsonRequest(one, lead, { enabled: true, ratePerSecond: 20 }, { method: 'PATCH' }), ruleParams)).json()).toMatchObject({
      enabled: true,
      disabledReason: null,
      ratePerSecond: 20,
    });
    expect((await deleteRule(jsonRequest(one, lead, {}, { method: 'DELETE' }), ruleParams)).status).toBe(204);
    expect(await db().redriveRule.count()).toBe(0);

    const trail = await auditTrail({ targetType: 'redrive_rule' });
    expect(whoDidWhat(trail)).toEqual([
      ['redrive_rule.create', 'lead@test.local'],
      ['redrive_rule.disable', 'lead@test.local'],
      ['redrive_rule.update', 'lead@test.local'],
      ['redrive_rule.delete', 'lead@test.local'],
    ]);
  });

  it('after a wave: exactly one task once the rate alarm has been OK for N, not before, not twice, requested by the author', async () => {
    const clock = manualClock(new Date());
    const rule = await createRedriveRule(w.lead, w.orders.name, AFTER_WAVE, clock);
    const ids = await park(w.orders, 30);
    // The wave: 30 dead letters in the rate window make the alarm leave OK.
    clock.advance(SECOND);
    await evaluateAlarms(clock);
    expect(await db().alarmState.findUniqueOrThrow({ where: { sourceId_kind: { sourceId: w.orders.id, kind: 'rate' } } })).toMatchObject({ state: 'PENDING' });
    expect(await evaluateRedriveRules(clock)).toMatchObject({ started: [] });

    // They leave the 5-minute window: the alarm is OK again and the wave is recorded with its cluster.
    clock.advance(6 * MINUTE);
    await evaluateAlarms(clock);
    const wave = await db().rateWave.findFirstOrThrow({ where: { sourceId: w.orders.id } });
    expect(wave).toMatchObject({ peak: 'PENDING', deadLetters: 30, clusterIds: [await clusterOf(ids[0]!)] });
    expect(wave.endedAt).not.toBeNull();

    // OK for 119 s: not yet.
    clock.advance(119 * SECOND);
    await evaluateRedriveRules(clock);
    expect(await tasksOf(w.orders.id)).toHaveLength(0);

    // Two maintenance workers at once: the trigger is claimed once.
    clock.advance(2 * SECOND);
    const both = await Promise.all([evaluateRedriveRules(clock), evaluateRedriveRules(clock)]);
    expect(both.flatMap((r) => r.started)).toHaveLength(1);
    const [task] = await tasksOf(w.orders.id);
    expect(task).toMatchObject({ ruleId: rule.id, createdById: w.lead.userId, status: 'queued', canary: true, ratePerSecond: 50, total: 30 });
    expect(task!.selection).toEqual({ cluster: wave.clusterIds[0], source: w.orders.name });
    const started = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.start', targetId: task!.id } });
    expect(started).toMatchObject({ actorEmail: 'lead@test.local' });
    expect(started.after).toMatchObject({ rule: { id: rule.id, name: AFTER_WAVE.name } });

    // The task goes on; later cycles, and the end of the task, start nothing more for that wave.
    await evaluateRedriveRules(clock);
    await db().redriveTask.update({ where: { id: task!.id }, data: { status: 'completed', finishedAt: clock.now() } });
    clock.advance(MINUTE);
    expect(await evaluateRedriveRules(clock)).toMatchObject({ started: [] });
    expect(await tasksOf(w.orders.id)).toHaveLength(1);
    expect(await db().redriveRule.findUniqueOrThrow({ where: { id: rule.id } })).toMatchObject({
      lastTaskId: task!.id,
      lastResult: `started task ${task!.id}`,
    });
  });

  it('one active task per source: the rule waits while another task is active, then starts', async () => {
    const clock = manualClock(new Date());
    const rule = await createRedriveRule(w.lead, w.orders.name, { ...AFTER_WAVE, okForSeconds: 60 }, clock);
    await park(w.orders, 20);
    const other = await park(w.orders, 3, { prefix: 'other', errorMessage: 'another cause entirely', from: 100 });
    clock.advance(SECOND);
    await evaluateAlarms(clock);
    clock.advance(6 * MINUTE);
    await evaluateAlarms(clock);
    // Support redrives something else by hand meanwhile.
    const manual = await startRedrive(w.support, { selection: { ids: other }, ratePerSecond: 1 }, clock);
    clock.advance(2 * MINUTE);
    expect(await evaluateRedriveRules(clock)).toMatchObject({ started: [], waiting: 1 });
    expect(await tasksOf(w.orders.id)).toHaveLength(1);
    expect((await db().redriveRule.findUniqueOrThrow({ where: { id: rule.id } })).lastResult).toBe(
      `waiting: ${w.orders.name} has an active redrive task ${manual.id} (queued)`,
    );

    await cancelRedrive(w.support, manual.id, { reason: 'done by hand' });
    const after = await evaluateRedriveRules(clock);
    expect(after.started).toHaveLength(1);
    const tasks = await tasksOf(w.orders.id);
    expect(tasks.map((t) => t.ruleId)).toEqual([null, rule.id]);
    expect(tasks[1]!.total).toBe(20);
  });

  it('on resolved: a cluster resolved with a fix version is redriven once; resolved without one, nothing', async () => {
    const clock = manualClock(new Date());
    const rule = await createRedriveRule(w.lead, w.orders.name, { name: 'when fixed', kind: 'on_resolved', ratePerSecond: 5 }, clock);
    const ids = await park(w.orders, 5);
    const cluster = await clusterOf(ids[0]!);
    await updateOwnership(w.support, cluster, { status: 'resolved' }, clock);
    await evaluateRedriveRules(clock);
    expect(await tasksOf(w.orders.id)).toHaveLength(0);

    await updateOwnership(w.support, cluster, { status: 'resolved', fixVersion: 'orders-handler 2.4.1' }, clock);
    expect((await evaluateRedriveRules(clock)).started).toHaveLength(1);
    await evaluateRedriveRules(clock);
    const tasks = await tasksOf(w.orders.id);
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({ ruleId: rule.id, createdById: w.lead.userId, total: 5, ratePerSecond: 5 });
    expect(tasks[0]!.reason).toContain('resolved with fix version orders-handler 2.4.1');
  });

  it("above the approval threshold the task waits for approval, with the rule's author as requester", async () => {
    await db().source.update({ where: { id: w.orders.id }, data: { approvalThreshold: 10 } });
    const clock = manualClock(new Date());
    await createRedriveRule(w.lead, w.orders.name, { name: 'when fixed', kind: 'on_resolved' }, clock);
    const ids = await park(w.orders, 30);
    await updateOwnership(w.lead, await clusterOf(ids[0]!), { status: 'resolved', fixVersion: 'v2' }, clock);
    await evaluateRedriveRules(clock);
    const [task] = await tasksOf(w.orders.id);
    expect(task).toMatchObject({ status: 'pending_approval', createdById: w.lead.userId, total: 30 });
    expect(await db().deadLetter.count({ where: { sourceId: w.orders.id, status: 'open' } })).toBe(30);
  });

  it('a rule whose task trips the circuit breaker disables itself and says why, audited', async () => {
    http = await receiver(() => 500);
    await db().source.update({ where: { id: w.partner.id }, data: { redriveUrl: http.url } });
    const clock = manualClock(new Date());
    const rule = await createRedriveRule(financeLead, w.partner.name, { name: 'when fixed', kind: 'on_resolved', ratePerSecond: 100, canary: false }, clock);
    const ids = await park(w.partner, 40, { prefix: 'p' });
    await updateOwnership(financeLead, await clusterOf(ids[0]!), { status: 'resolved', fixVersion: 'gateway 7' }, clock);
    await evaluateRedriveRules(clock);
    const [task] = await tasksOf(w.partner.id);
    expect(task).toMatchObject({ ruleId: rule.id, status: 'queued' });
    // The redrive worker's run: the receiver refuses everything, so the breaker pauses the task.
    expect(await runRedriveTask(task!.id, { statusPollMs: 20, maxHttpAttempts: 1 })).toBe('paused');

    const r = await evaluateRedriveRules(clock);
    expect(r.disabled).toBe(1);
    const disabled = await db().redriveRule.findUniqueOrThrow({ where: { id: rule.id } });
    expect(disabled.enabled).toBe(false);
    expect(disabled.disabledReason).toMatch(new RegExp(`^its redrive task ${task!.id} was stopped: Circuit breaker: \\d+ of the last \\d+`));
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive_rule.disable', targetId: rule.id } });
    expect(event).toMatchObject({ actorEmail: 'redrive-rules', result: disabled.disabledReason });
    // Once, however often it is evaluated.
    expect((await evaluateRedriveRules(clock)).disabled).toBe(0);
  });
});
