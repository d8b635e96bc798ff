// Redrive outcomes: every sent item is final within the task's outcome window —
// acknowledged, dead again (a newer generation came back, as a connector's import brings it), or
// "no death seen" at the window's end — and the task completes only then. Per item, a destination's
// failure is the message's (a failed item, counted by the breaker) or the infrastructure's (retried
// later, not counted). Time is the runner's injected clock, moved on by the test, never waited for.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { getRedriveTask, pauseRedrive, startRedrive } from '@/lib/redrive';
import { destinationFor, type DeliveryResult, type DestinationSource, type OutgoingRedrive, type RedriveDestination } from '@/lib/redrive/destinations';
import { startRedriveSupervisor, type RedriveSupervisor, type RedriveSupervisorOptions } from '@/lib/redrive/supervisor';
import { freshDatabase } from '../support/lifecycle';
import { waitFor } from './runtime-support';
import { park, receiver, redriveOrders, shiftedClock, spawnRedriveWorker, world, type Receiver, worldWithParked, waitForTask } from './redrive-support';
import type { WorkerChild } from '../support/worker-child';

const MINUTE = 60_000;

let supervisor: RedriveSupervisor | undefined;
let http: Receiver | undefined;
let worker: WorkerChild | undefined;

async function task(id: string) {
  return db().redriveTask.findUniqueOrThrow({ where: { id } });
}

async function items(taskId: string) {
  return db().redriveItem.findMany({ where: { taskId }, orderBy: { seq: 'asc' } });
}

async function supervise(options: RedriveSupervisorOptions): Promise<RedriveSupervisor> {
  supervisor = await startRedriveSupervisor({ reconcileMs: 200, statusPollMs: 100, ...options });
  return supervisor;
}

/** A supervisor on a wall clock the test moves on (shiftedClock): the clock. */
async function superviseOnShiftedClock(options: Omit<RedriveSupervisorOptions, 'clock'> = {}) {
  const clock = shiftedClock();
  await supervise({ ...options, clock: clock.now });
  return clock;
}

/** Until the task completes; `tick` runs at each look (a test clock that moves while it waits). */
async function completed(id: string, tick?: () => void) {
  return waitFor('completed', async () => {
    tick?.();
    const t = await task(id);
    return t.status === 'completed' ? t : undefined;
  });
}

/**
 * The source's real destination, with some items' answers scripted per call (null: the real
 * destination delivers it). Stands in for a connector's per-item verdicts, which the broker gives.
 */
function scripted(script: (m: OutgoingRedrive, call: number) => DeliveryResult | null) {
  const calls = new Map<string, number>();
  return (source: DestinationSource, opts: { httpTimeoutMs?: number }): RedriveDestination => {
    const real = destinationFor(source, opts);
    return {
      description: real.description,
      failures: real.failures,
      close: real.close ? () => real.close!() : undefined,
      async deliver(batch, signal) {
        const answers = batch.map((m) => {
          const n = (calls.get(m.messageId) ?? 0) + 1;
          calls.set(m.messageId, n);
          return script(m, n);
        });
        const through = batch.filter((_, k) => answers[k] === null);
        const delivered = through.length > 0 ? await real.deliver(through, signal) : [];
        let j = 0;
        return answers.map((a) => a ?? delivered[j++]!);
      },
    };
  };
}

/** Five parked dead letters redriven with a 2-minute outcome window, all sent, on a clock the test moves. */
async function fiveSentInTwoMinuteWindows() {
  const clock = await superviseOnShiftedClock();
  const { w, ids } = await worldWithParked(5);
  const t = await startRedrive(w.support, { selection: { ids }, ratePerSecond: 100, outcomeWindowSeconds: 120 });
  await waitFor('all sent', async () => (await task(t.id)).sent === 5);
  return { clock, w, ids, t };
}

describe('redrive outcomes', () => {
  freshDatabase();
  afterEach(async () => {
    await supervisor?.stop();
    await http?.close();
    if (worker) {
      worker.process.kill('SIGKILL');
      await worker.exited;
    }
    supervisor = http = worker = undefined;
  });

  it('a destination that reports nothing: running, awaiting outcomes, until the window ends; then every item is no death seen and the task completes', async () => {
    const clock = await superviseOnShiftedClock();
    const { w, ids } = await worldWithParked(20);
    // Nothing consumes the queue: no acknowledgement, no death.
    const t = await redriveOrders(w);
    expect(t).toMatchObject({ outcomeWindowMs: 600_000, canaryWindowMs: 60_000 });
    await waitFor('all sent', async () => (await task(t.id)).sent === 20);

    const waiting = await getRedriveTask(w.support, t.id);
    expect(waiting).toMatchObject({
      status: 'running',
      outcomeWindowSeconds: 600,
      counts: { sent: 20, pending: 0, awaitingOutcome: 20, noDeathSeen: 0, acknowledged: 0 },
    });
    const lastSent = Math.max(...(await items(t.id)).map((i) => i.sentAt!.getTime()));
    expect(waiting.outcomesDueAt).toBe(new Date(lastSent + 600_000).toISOString());
    expect(await db().deadLetter.count({ where: { id: { in: ids.map(BigInt) }, status: 'redriving' } })).toBe(20);

    clock.advance(10 * MINUTE + 1_000);
    const done = await completed(t.id);
    expect(done).toMatchObject({ sent: 20, acknowledged: 0, deadAgain: 0, noDeathSeen: 20, failed: 0 });
    expect((await items(t.id)).map((i) => i.state)).toEqual(new Array(20).fill('no_death_seen'));
    // No longer in Triage's hands: decided as redriven, nothing left open or redriving.
    expect(await db().deadLetter.count({ where: { sourceId: w.orders.id, status: 'redriven' } })).toBe(20);
    expect(await db().deadLetter.count({ where: { sourceId: w.orders.id, status: { in: ['open', 'redriving'] } } })).toBe(0);
    const view = await getRedriveTask(w.support, t.id);
    expect(view).toMatchObject({ verdict: 'worked', outcomesDueAt: null, counts: { noDeathSeen: 20, acknowledged: 0, awaitingOutcome: 0 } });
    // The end of the task carries the final figures.
    const finish = await db().auditEvent.findFirstOrThrow({ where: { targetId: t.id, action: 'redrive.finish' } });
    expect(finish.result).toBe('20 sent: 0 acknowledged, 0 dead again, 20 no death seen, 0 awaiting outcome; 0 skipped, 0 failed');
    expect(finish.after).toMatchObject({ status: 'completed', noDeathSeen: 20, acknowledged: 0, awaitingOutcome: 0 });
  });

  it('a message that dies again within the window (back through import as the next generation) is dead again; the rest no death seen', async () => {
    const { clock, w, ids, t } = await fiveSentInTwoMinuteWindows();
    // m-2 died again downstream and came back the way a connector imports it: generation 1.
    await park(w.orders, 1, { from: 2, redriveCount: 1 });

    clock.advance(2 * MINUTE + 1_000);
    const done = await completed(t.id);
    expect(done).toMatchObject({ sent: 5, deadAgain: 1, noDeathSeen: 4, acknowledged: 0 });
    const byDeadLetter = new Map((await items(t.id)).map((i) => [i.deadLetterId.toString(), i.state]));
    expect(byDeadLetter.get(ids[2]!)).toBe('dead_again');
    expect([0, 1, 3, 4].map((k) => byDeadLetter.get(ids[k]!))).toEqual(new Array(4).fill('no_death_seen'));
    // Its new death is open in its own right; the redriven one is decided.
    expect(await db().deadLetter.count({ where: { messageId: 'm-2', generation: 1, status: 'open' } })).toBe(1);
    expect(await db().deadLetter.count({ where: { id: { in: ids.map(BigInt) }, status: 'redriven' } })).toBe(5);
    expect((await getRedriveTask(w.support, t.id)).verdict).toBe('mixed');
  });

  it('a death within the window that the import brings back after the window ended (import behind or paused) corrects no death seen to dead again', async () => {
    const { clock, w, ids, t } = await fiveSentInTwoMinuteWindows();
    const sentAt = new Map((await items(t.id)).map((i) => [i.deadLetterId.toString(), i.sentAt!.getTime()]));

    clock.advance(2 * MINUTE + 1_000);
    expect(await completed(t.id)).toMatchObject({ sent: 5, deadAgain: 0, noDeathSeen: 5 });
    expect((await getRedriveTask(w.support, t.id)).verdict).toBe('worked');

    // The broker dead-lettered m-2 30 s after it was sent, but the connector's import was behind:
    // it arrives now, after the window's end. m-3 died again too, but after its window: not this
    // redrive's outcome.
    await park(w.orders, 1, { from: 2, redriveCount: 1, deadAt: new Date(sentAt.get(ids[2]!)! + 30_000) });
    await park(w.orders, 1, { from: 3, redriveCount: 1, deadAt: new Date(sentAt.get(ids[3]!)! + 2 * MINUTE + 60_000) });

    const corrected = await waitForTask(t.id, 'the late death counted', (x) => x.deadAgain === 1, 30_000);
    expect(corrected).toMatchObject({ status: 'completed', sent: 5, deadAgain: 1, noDeathSeen: 4, acknowledged: 0 });
    const byDeadLetter = new Map((await items(t.id)).map((i) => [i.deadLetterId.toString(), i.state]));
    expect(byDeadLetter.get(ids[2]!)).toBe('dead_again');
    expect(byDeadLetter.get(ids[3]!)).toBe('no_death_seen');
    expect((await getRedriveTask(w.support, t.id)).verdict).toBe('mixed');
    // Decided as redriven either way; the reason now names the newer dead letter.
    const redriven = await db().deadLetter.findFirstOrThrow({ where: { id: BigInt(ids[2]!) } });
    expect(redriven.status).toBe('redriven');
    expect(redriven.decisionReason).toMatch(new RegExp(`^Redriven by task ${t.id}: dead again as \\d+$`));
    // The verdict changed after the task ended: the trail says so, and why.
    const correction = await db().auditEvent.findFirstOrThrow({ where: { targetId: t.id, action: 'redrive.outcomes_corrected' } });
    expect(correction.count).toBe(1);
    expect(correction.result).toContain('1 no death seen corrected to dead again');
    expect(correction.after).toMatchObject({ status: 'completed', deadAgain: 1, noDeathSeen: 4 });
  });

  it('a mixed batch: infrastructure failures wait and go later without counting for the breaker; a message failure is a failed item', async () => {
    const clock = shiftedClock();
    http = await receiver();
    const w = await world({ partnerUrl: http.url });
    const ids = await park(w.partner, 40, { prefix: 'p' });
    const unavailable = new Set(['p-0', 'p-4', 'p-8', 'p-12', 'p-16', 'p-20', 'p-24', 'p-28', 'p-32', 'p-36']);
    await supervise({
      clock: clock.now,
      maxHttpAttempts: 2,
      destinationFor: scripted((m, call) => {
        if (m.messageId === 'p-13') return { ok: false, error: 'refused: message too large', failure: 'message' };
        if (unavailable.has(m.messageId) && call <= 2) return { ok: false, error: 'broker unreachable', failure: 'infrastructure' };
        return null;
      }),
    });
    const t = await startRedrive(w.financeSupport, { selection: { source: w.partner.name }, ratePerSecond: 100 });
    // Time runs fast while the test looks (5 s a look): each backoff ends without a wait.
    const done = await completed(t.id, () => clock.advance(5_000));
    // Twenty infrastructure failures would have tripped the breaker (over 20% of the last 50); they were not counted.
    expect(done).toMatchObject({ total: 40, sent: 39, acknowledged: 39, failed: 1, deadAgain: 0, pausedReason: null });
    expect((await db().auditEvent.findMany({ where: { targetId: t.id }, orderBy: { id: 'asc' } })).map((e) => e.action)).toEqual([
      'redrive.start',
      'redrive.finish',
    ]);

    const all = await items(t.id);
    const failed = all.filter((i) => i.state === 'failed');
    expect(failed.map((i) => i.deadLetterId.toString())).toEqual([ids[13]]);
    expect(failed[0]!.error).toBe('refused: message too large (after 2 attempts)');
    expect(await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(ids[13]!) } })).toMatchObject({ status: 'open' });

    // Each message arrived once; every one the broker could not take went out later, after messages behind it in the selection.
    const order = http.deliveries.map((d) => d.messageId);
    expect(order).toHaveLength(39);
    expect(new Set(order).size).toBe(39);
    const at = (id: string) => order.indexOf(id);
    for (const id of unavailable) {
      const k = Number(id.slice(2));
      const behind = order.filter((m) => Number(m.slice(2)) > k);
      expect(Math.min(...behind.map(at))).toBeLessThan(at(id));
      const item = all[k]!;
      expect(item).toMatchObject({ state: 'acknowledged', error: null });
      expect(item.attempts).toBeGreaterThanOrEqual(3);
    }
  });

  it('message failures count for the breaker even where the destination defaults to infrastructure: failed items, then the task pauses', async () => {
    await superviseOnShiftedClock({
      maxHttpAttempts: 2,
      // The built-in destination's failures are the infrastructure's by default; these items say otherwise.
      destinationFor: scripted(() => ({ ok: false, error: 'refused by the broker: PRECONDITION_FAILED', failure: 'message' })),
    });
    const { w, ids } = await worldWithParked(30);
    const t = await redriveOrders(w, { ratePerSecond: 10 });
    const paused = await waitForTask(t.id, 'paused', (x) => x.status === 'paused');
    expect(paused.pausedReason).toMatch(/^Circuit breaker: \d+ of the last \d+ redriven messages came back dead or undelivered/);
    expect(paused).toMatchObject({ sent: 0, acknowledged: 0 });
    expect(paused.failed).toBeGreaterThanOrEqual(1);
    const failed = (await items(t.id)).filter((i) => i.state === 'failed');
    expect(failed).toHaveLength(paused.failed);
    expect(failed[0]).toMatchObject({ deadLetterId: BigInt(ids[0]!), error: 'refused by the broker: PRECONDITION_FAILED (after 2 attempts)' });
    expect(await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(ids[0]!) } })).toMatchObject({ status: 'open' });
  });

  it('a worker killed mid-window: the restarted one finalizes from Postgres', { timeout: 90_000 }, async () => {
    const { ids } = await worldWithParked(10);
    worker = spawnRedriveWorker();
    await worker.ready;
    const t = await startRedrive({ ...SYSTEM, label: 'outcome-test' }, { selection: { ids }, ratePerSecond: 100 });
    await waitFor('all sent', async () => (await task(t.id)).sent === 10, 30_000);
    worker.process.kill('SIGKILL');
    await worker.exited;
    worker = undefined;
    expect(await task(t.id)).toMatchObject({ status: 'running', noDeathSeen: 0 });

    // The next worker comes up after the window ended: nothing of the window was held in memory.
    const clock = shiftedClock();
    clock.advance(10 * MINUTE + 1_000);
    await supervise({ clock: clock.now });
    expect(await completed(t.id)).toMatchObject({ sent: 10, noDeathSeen: 10, deadAgain: 0, acknowledged: 0 });
    expect(await db().deadLetter.count({ where: { id: { in: ids.map(BigInt) }, status: 'redriven' } })).toBe(10);
  });

  it('a paused task: its sent items still become final at their window end; the unsent stay held', async () => {
    const clock = await superviseOnShiftedClock();
    const { w } = await worldWithParked(200);
    const t = await redriveOrders(w, { ratePerSecond: 50, outcomeWindowSeconds: 60 });
    await waitFor('some sent', async () => (await task(t.id)).sent >= 10);
    await pauseRedrive(w.support, t.id);
    await waitFor('runner stopped', async () => !supervisor!.running().includes(t.id), 5_000, 20);
    const paused = await task(t.id);

    clock.advance(MINUTE + 1_000);
    await waitFor('sent items final', async () => (await task(t.id)).noDeathSeen === paused.sent);
    expect(await task(t.id)).toMatchObject({ status: 'paused', noDeathSeen: paused.sent });
    expect(await db().deadLetter.count({ where: { sourceId: w.orders.id, status: 'redriven' } })).toBe(paused.sent);
    expect(await db().deadLetter.count({ where: { sourceId: w.orders.id, status: 'redriving' } })).toBe(200 - paused.sent);
  });

  // Each CLI run compiles the CLI afresh (tsx): several seconds apiece on a busy machine.
  it('the CLI starts a task with its outcome window and shows the figures, awaiting outcomes, then no death seen', { timeout: 180_000 }, async () => {
    const cli = (...args: string[]) => {
      const r = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', ...args], { encoding: 'utf8', env: process.env });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    const clock = await superviseOnShiftedClock();
    const { w, ids } = await worldWithParked(3);
    const started = JSON.parse(cli('redrive', 'start', '--ids', ids.join(','), '--rate', '50', '--outcome-window', '2m', '--reason', 'v2 out', '--json')) as {
      id: string;
      outcomeWindowSeconds: number;
      counts: { total: number };
    };
    expect(started).toMatchObject({ outcomeWindowSeconds: 120, counts: { total: 3 } });
    await waitFor('all sent', async () => (await task(started.id)).sent === 3);
    expect(cli('redrive', 'show', '--id', started.id)).toMatch(
      new RegExp(
        `^redrive ${started.id} of ${w.orders.name}: running — awaiting outcomes \\(final by .+, in \\d+ (s|min)\\); 3 sent of 3: 0 acknowledged, 0 no death seen`,
      ),
    );
    clock.advance(2 * MINUTE + 1_000);
    await completed(started.id);
    expect(cli('redrive', 'show', '--id', started.id)).toContain(
      `completed; 3 sent of 3: 0 acknowledged, 3 no death seen, 0 dead again, 0 awaiting outcome; 0 skipped, 0 failed, 0 not sent yet; outcome window 2 min`,
    );
    expect(cli('redrive', 'list', '--source', w.orders.name, '--status', 'completed')).toContain('3 no death seen');
    expect(
      spawnSync(
        process.execPath,
        ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', 'redrive', 'start', '--source', w.orders.name, '--outcome-window', 'soon'],
        { encoding: 'utf8', env: process.env },
      ),
    ).toMatchObject({
      status: 2,
      stderr: expect.stringContaining('--outcome-window takes a duration') as unknown,
    });
  });

  it('a canary with no death seen in its canary window lets the rest go', async () => {
    const clock = await superviseOnShiftedClock();
    const { w, ids } = await worldWithParked(10);
    const t = await redriveOrders(w, { canary: true, canaryWindowSeconds: 30 });
    expect(t).toMatchObject({ canaryWindowMs: 30_000, outcomeWindowMs: 600_000 });
    await waitFor('the canary sent', async () => (await task(t.id)).sent === 1);
    expect((await getRedriveTask(w.support, t.id)).counts).toMatchObject({ sent: 1, pending: 9, awaitingOutcome: 1 });

    clock.advance(30_000 + 1_000);
    await waitFor('the rest sent', async () => (await task(t.id)).sent === 10);
    const all = await items(t.id);
    expect(all[0]).toMatchObject({ deadLetterId: BigInt(ids[0]!), state: 'no_death_seen' });
    for (const i of all.slice(1)) {
      expect(i.state).toBe('sent');
      expect(i.sentAt!.getTime()).toBeGreaterThanOrEqual(all[0]!.outcomeAt!.getTime());
    }
    // The rest wait for the task's own window.
    expect(await task(t.id)).toMatchObject({ status: 'running', noDeathSeen: 1 });
    clock.advance(10 * MINUTE + 1_000);
    expect(await completed(t.id)).toMatchObject({ sent: 10, noDeathSeen: 10 });
  });
});
