// Edit and redrive, bulk transforms and redrive to another source: the permission and
// four-eyes checks of each new action, versions with their own SHA-256, a transform that cannot
// apply to some dead letters (listed, not sent), and the allow-list of a destination source.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { SYSTEM, type Actor } from '@/lib/auth';
import { createSource } from '@/lib/sources/create-source';
import { updateSourcePolicy } from '@/lib/sources/update-policy';
import { closeDb, db } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { AppError } from '@/lib/errors';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { revealPayload } from '@/lib/deadletters/reveal-payload';
import { approveRedrive, getRedriveTask, startRedrive } from '@/lib/redrive';
import { editDeadLetter, listDeadLetterVersions, previewTransform, startTransform } from '@/lib/redrive/edit';
import { startRedriveSupervisor, type RedriveSupervisor } from '@/lib/redrive/supervisor';
import { resetDatabase } from '../support/db';
import { waitFor } from './runtime-support';
import { park, person, testConsumer, world, type TestConsumer, type World } from './redrive-support';

const RUNNER = { reconcileMs: 200, statusPollMs: 100 };
const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const fixed = (k: number) => JSON.stringify({ order: k });

let supervisor: RedriveSupervisor | undefined;
let consumers: TestConsumer[] = [];
let w: World;
let auditor: Actor;
let admin: Actor;
let financeLead: Actor;

/** The refusal and its HTTP status (a ZodError is the route's 400). */
async function failure(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e instanceof ZodError) return { status: 400, message: e.message };
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

const task = (id: string) => db().redriveTask.findUniqueOrThrow({ where: { id } });

/**
 * Each group's hooks: a reset database with the world, then `people` (the group's extra actors), and
 * a redrive supervisor per test, stopped after it with the test's consumers.
 */
function redriveHooks(people: () => Promise<void> = async () => {}) {
  beforeEach(async () => {
    await resetDatabase();
    w = await world();
    await people();
    supervisor = await startRedriveSupervisor(RUNNER);
  });
  afterEach(async () => {
    await supervisor?.stop();
    for (const c of consumers) await c.close();
    consumers = [];
    supervisor = undefined;
  });
}

describe('edit and redrive', () => {
  redriveHooks(async () => {
    auditor = await person('auditor@test.local', 'auditor');
    admin = await person('admin@test.local', 'admin');
    financeLead = await person('finance-lead@test.local', 'lead', 'finance');
  });
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

  it('stores the edited copy as a version, waits for a second person, and sends the copy, not the original', async () => {
    const [id] = await park(w.orders, 1);
    const original = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id!) } });
    const r = await editDeadLetter(w.support, id!, {
      payload: fixed(0),
      headers: { 'content-type': 'application/json', 'x-tenant': 'acme', 'x-fixed': 'yes' },
      reason: 'drop the gift field',
    });
    expect(r.task.status).toBe('pending_approval');
    expect(r.waitsFor).toMatch(/second person/);
    expect(r.versions[0]).toMatchObject({ version: 1, sha256: sha(fixed(0)), size: fixed(0).length });
    expect(r.diff).toMatchObject({
      payload: { kind: 'json', changes: [{ op: 'remove', path: '$.gift', before: true }] },
      headers: [{ name: 'x-fixed', before: null, after: 'yes' }],
    });

    // The original bytes are untouched; the version has its own row and hash.
    const after = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id!) } });
    expect(after.payloadSha256).toBe(original.payloadSha256);
    expect(Buffer.from(after.payload!).toString()).toBe(JSON.stringify({ order: 0, gift: true }));
    const versions = await listDeadLetterVersions(w.support, id!);
    expect(versions).toMatchObject([{ version: 1, sha256: sha(fixed(0)), tasks: [r.task.id] }]);
    const item = await db().redriveItem.findFirstOrThrow({ where: { taskId: r.task.id } });
    expect(item.versionId?.toString()).toBe(versions[0]!.id);

    // The audit event: both hashes and the diff, in the same transaction as the task.
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'deadletter.edit', targetId: id! } });
    expect(event.before).toMatchObject({ sha256: original.payloadSha256 });
    expect(event.after).toMatchObject({ sha256: sha(fixed(0)), taskId: r.task.id, diff: { payload: { changes: [{ op: 'remove', path: '$.gift' }] } } });

    // Four eyes: not its author, not another support engineer, not an auditor, not another team's lead.
    expect((await failure(approveRedrive(w.support, r.task.id))).status).toBe(403);
    expect((await failure(approveRedrive(w.support2, r.task.id))).status).toBe(403);
    expect((await failure(approveRedrive(auditor, r.task.id))).status).toBe(403);
    expect((await failure(approveRedrive(financeLead, r.task.id))).status).toBe(404);
    const consumer = await testConsumer(w.orders.name);
    consumers.push(consumer);
    await approveRedrive(w.lead, r.task.id, { reason: 'looks right' });
    await waitFor('acknowledged', async () => (await task(r.task.id)).acknowledged === 1);
    expect(consumer.received).toHaveLength(1);
    expect(Buffer.from(consumer.received[0]!.body).toString()).toBe(fixed(0));
    expect(consumer.received[0]!.headers).toMatchObject({ 'x-fixed': 'yes' });
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id!) } })).status).toBe('redriven');
  });

  it('refuses an edit to an auditor (403), another team (404), an edit that changes nothing (422), no reason (400) and a second task on the source (409)', async () => {
    const [a, b] = await park(w.orders, 2);
    expect((await failure(editDeadLetter(auditor, a!, { payload: fixed(0), reason: 'x' }))).status).toBe(403);
    expect((await failure(editDeadLetter(w.financeSupport, a!, { payload: fixed(0), reason: 'x' }))).status).toBe(404);
    expect((await failure(editDeadLetter(w.support, a!, { payload: JSON.stringify({ order: 0, gift: true }), reason: 'x' }))).status).toBe(422);
    expect((await failure(editDeadLetter(w.support, a!, { payload: fixed(0) } as never))).status).toBe(400);
    await editDeadLetter(w.support, a!, { payload: fixed(0), reason: 'x' });
    // One active task per source.
    expect((await failure(editDeadLetter(w.support, b!, { payload: fixed(1), reason: 'x' }))).status).toBe(409);
    expect(await db().deadLetterVersion.count()).toBe(1);
  });

  it("a lead's own edit waits too; an admin approves it; N per source lets small edits through", async () => {
    const [a] = await park(w.orders, 1);
    const r = await editDeadLetter(w.lead, a!, { payload: fixed(0), reason: 'x' });
    expect(r.task.status).toBe('pending_approval');
    expect((await failure(approveRedrive(w.lead, r.task.id))).status).toBe(403);
    await approveRedrive(admin, r.task.id);
    expect((await task(r.task.id)).approvedById).toBe(admin.userId);

    const other = await createSource(SYSTEM, { name: `edits-n-${Date.now()}`, team: 'commerce', kind: 'builtin' });
    await updateSourcePolicy(w.lead, other.name, { editApprovalThreshold: 2 });
    const [c] = await park(other, 1);
    const small = await editDeadLetter(w.support, c!, { payload: fixed(0), reason: 'one of them' });
    expect(small.task.status).toBe('queued');
  });

  it('a masked payload is edited only after a reveal (permission, reason, audit)', async () => {
    await db().source.update({ where: { id: w.orders.id }, data: { sensitivePaths: ['$.card'] } });
    const [r0] = await recordDeadLetters(w.orders, [
      {
        messageId: 'card-1',
        payload: Buffer.from(JSON.stringify({ order: 1, card: '4111 1111 1111 1111', gift: true })),
        reason: 'Rejected',
        errorType: 'SchemaError',
      },
    ]);
    const id = r0!.id;
    const edit = { payload: JSON.stringify({ order: 1, card: '4111 1111 1111 1111' }), reason: 'drop gift' };
    expect((await failure(editDeadLetter(w.support, id, edit))).status).toBe(403);
    const { eventId } = await revealPayload(w.support, id, 'fixing the schema error', 'page');
    const ok = await editDeadLetter(w.support, id, { ...edit, revealId: eventId });
    expect(ok.task.status).toBe('pending_approval');
    // On the trail the card number is masked in the diff too.
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'deadletter.edit', targetId: id } });
    expect(JSON.stringify(event.after)).not.toContain('4111 1111 1111 1111');
  });
});

describe('bulk transform', () => {
  redriveHooks(async () => {
    auditor = await person('auditor@test.local', 'auditor');
    financeLead = await person('finance-lead@test.local', 'lead', 'finance');
  });

  it('previews samples and the count, lists those it cannot apply to, and sends only the transformed copies', async () => {
    const ids = await park(w.orders, 5);
    // Same cause, but one is not JSON and one has no "gift" to remove.
    const odd = await recordDeadLetters(w.orders, [
      {
        messageId: 'not-json',
        payload: Buffer.from('order=7;gift=true'),
        reason: 'Rejected',
        errorType: 'SchemaError',
        errorMessage: 'unknown field "gift" in order',
      },
      {
        messageId: 'no-gift',
        payload: Buffer.from(JSON.stringify({ order: 8 })),
        reason: 'Rejected',
        errorType: 'SchemaError',
        errorMessage: 'unknown field "gift" in order',
      },
    ]);
    const cluster = (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(ids[0]!) } })).clusterId!;
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(odd[0]!.id) } })).clusterId).toBe(cluster);
    const transform = [
      { op: 'remove' as const, path: '$.gift' },
      { op: 'set' as const, path: '$.schema', value: 2 },
      { op: 'header' as const, name: 'x-transformed', value: 'gift-removed' },
    ];

    expect((await failure(previewTransform(auditor, { selection: { cluster }, transform }))).status).toBe(403);
    expect((await failure(previewTransform(w.financeSupport, { selection: { cluster }, transform }))).status).toBe(422);
    const p = await previewTransform(w.support, { selection: { cluster }, transform });
    expect(p).toMatchObject({ total: 7, applies: 5, cannotApplyCount: 2, needsApproval: true });
    expect(p.cannotApply.map((c) => [c.messageId, c.why]).sort()).toEqual([
      ['no-gift', 'path missing: $.gift'],
      ['not-json', 'not JSON'],
    ]);
    expect(p.samples).toHaveLength(3);
    expect(JSON.parse(p.samples[0]!.after)).toEqual({ order: 0, schema: 2 });

    const r = await startTransform(w.support, { selection: { cluster }, transform, reason: 'v2 schema', ratePerSecond: 50 });
    expect(r).toMatchObject({ applies: 5, cannotApplyCount: 2 });
    expect(r.task).toMatchObject({ status: 'pending_approval', total: 5 });
    const view = await getRedriveTask(w.support, r.task.id);
    expect(view.edit).toMatchObject({ kind: 'transform', cannotApplyCount: 2 });
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'redrive.transform', targetId: r.task.id } });
    expect(event).toMatchObject({ count: 5, reason: 'v2 schema' });

    expect((await failure(approveRedrive(w.support, r.task.id))).status).toBe(403);
    expect((await failure(approveRedrive(financeLead, r.task.id))).status).toBe(404);
    const consumer = await testConsumer(w.orders.name);
    consumers.push(consumer);
    await approveRedrive(w.lead, r.task.id);
    await waitFor('acknowledged', async () => (await task(r.task.id)).acknowledged === 5);
    expect(consumer.received.map((m) => JSON.parse(Buffer.from(m.body).toString())).sort((a, b) => a.order - b.order)).toEqual(
      [0, 1, 2, 3, 4].map((k) => ({ order: k, schema: 2 })),
    );
    expect(consumer.received.every((m) => m.headers['x-transformed'] === 'gift-removed')).toBe(true);
    // Those it could not apply to were not sent: still open, with no version.
    for (const o of odd) {
      expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(o.id) } })).status).toBe('open');
      expect(await db().deadLetterVersion.count({ where: { deadLetterId: BigInt(o.id) } })).toBe(0);
    }
  });

  it('rejects a transform with a bad path (400)', async () => {
    const ids = await park(w.orders, 1);
    expect((await failure(previewTransform(w.support, { selection: { ids }, transform: [{ op: 'remove', path: 'gift' }] }))).status).toBe(400);
  });
});

describe('redrive to another source', () => {
  redriveHooks();

  it('is refused without the allow-list entry, works with it, and links the outcomes by message id', async () => {
    const dest = await createSource(SYSTEM, { name: `orders-v2-${Date.now()}`, team: 'commerce', kind: 'builtin' });
    const ids = await park(w.orders, 4);
    const refused = await failure(startRedrive(w.support, { selection: { ids }, destination: dest.name }));
    expect(refused.status).toBe(422);
    expect(refused.message).toMatch(/allow-list/);
    // Another kind: refused whatever the allow-list says; another team's source: not found.
    expect((await failure(startRedrive(w.support, { selection: { ids }, destination: w.partner.name }))).status).toBe(404);
    expect((await failure(updateSourcePolicy(w.support, dest.name, { redriveAllowedFrom: [w.orders.name] }))).status).toBe(403);
    await updateSourcePolicy(w.lead, dest.name, { redriveAllowedFrom: [w.orders.name] });

    const origin = await testConsumer(w.orders.name);
    const into = await testConsumer(dest.name, 'reject');
    consumers.push(origin, into);
    const t = await startRedrive(w.support, { selection: { ids: ids.slice(0, 2) }, destination: dest.name, ratePerSecond: 50 });
    const view = await getRedriveTask(w.support, t.id);
    expect(view).toMatchObject({ source: { name: w.orders.name }, destination: { name: dest.name } });
    // One active task per source counts the origin.
    expect((await failure(startRedrive(w.support, { selection: { ids: ids.slice(2) } }))).status).toBe(409);

    // The destination's consumer rejects them: they die there, and the task counts them dead again.
    await waitFor('dead again', async () => (await task(t.id)).deadAgain === 2);
    expect(origin.received).toHaveLength(0);
    expect(into.received.map((m) => m.id).sort()).toEqual(['m-0', 'm-1']);
    const there = await db().deadLetter.findMany({ where: { sourceId: dest.id }, select: { messageId: true } });
    expect(there.map((d) => d.messageId).sort()).toEqual(['m-0', 'm-1']);
    for (const id of ids.slice(0, 2)) expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) } })).status).toBe('redriven');
  });
});
