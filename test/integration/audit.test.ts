import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { append, SYSTEM_ACTOR, verifyChain } from '@/lib/audit';
import { closeDb, db } from '@/lib/db';
import { resetDatabase } from '../support/db';

async function appendN(n: number) {
  for (let i = 0; i < n; i++) {
    await db().$transaction((tx) =>
      append(tx, { actor: SYSTEM_ACTOR, action: 'test.event', targetType: 'thing', targetId: String(i), after: { i, nested: { b: 1, a: [1, 'x'] } } }),
    );
  }
  return db().auditEvent.findMany({ orderBy: { id: 'asc' } });
}

describe('audit trail', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('chains each event to the one before and verifies clean', async () => {
    const events = await appendN(5);
    expect(events).toHaveLength(5);
    expect(events[0]!.prevHash).toBe('0'.repeat(64));
    for (let i = 1; i < events.length; i++) expect(events[i]!.prevHash).toBe(events[i - 1]!.hash);
    expect(await verifyChain()).toMatchObject({ ok: true, checked: 5 });
  });

  it('rolls the event back with the change it belongs to', async () => {
    await expect(
      db().$transaction(async (tx) => {
        await append(tx, { actor: SYSTEM_ACTOR, action: 'test.event' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await db().auditEvent.count()).toBe(0);
  });

  it('keeps the chain intact under concurrent appends', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => db().$transaction((tx) => append(tx, { actor: SYSTEM_ACTOR, action: 'test.concurrent', targetId: String(i) }))),
    );
    expect(await verifyChain()).toMatchObject({ ok: true, checked: 20 });
  });

  it('is refused UPDATE, DELETE and TRUNCATE by the database', async () => {
    const [e] = await appendN(1);
    await expect(db().$executeRawUnsafe(`UPDATE audit_events SET reason = 'edited' WHERE id = ${e!.id}`)).rejects.toThrow(/append-only/);
    await expect(db().$executeRawUnsafe(`DELETE FROM audit_events WHERE id = ${e!.id}`)).rejects.toThrow(/append-only/);
    await expect(db().$executeRawUnsafe('TRUNCATE audit_events')).rejects.toThrow(/append-only/);
    expect(await db().auditEvent.count()).toBe(1);
  });

  it('names the first broken link when a superuser edits a row behind the triggers', async () => {
    const events = await appendN(6);
    const victim = events[3]!;
    await db().$transaction([
      db().$executeRawUnsafe('ALTER TABLE audit_events DISABLE TRIGGER USER'),
      db().$executeRawUnsafe(`UPDATE audit_events SET after = '{"i": 999}' WHERE id = ${victim.id}`),
      db().$executeRawUnsafe('ALTER TABLE audit_events ENABLE TRIGGER USER'),
    ]);
    const r = await verifyChain();
    expect(r.ok).toBe(false);
    expect(r.firstBrokenId).toBe(victim.id.toString());
    // Verification goes on past the break: every event is checked, and only the victim is broken.
    expect(r.checked).toBe(6);
    expect(r.breaks.map((b) => [b.id, b.kind])).toEqual([[victim.id.toString(), 'content']]);
  });

  it('detects a deleted middle row', async () => {
    const events = await appendN(5);
    await db().$transaction([
      db().$executeRawUnsafe('ALTER TABLE audit_events DISABLE TRIGGER USER'),
      db().$executeRawUnsafe(`DELETE FROM audit_events WHERE id = ${events[2]!.id}`),
      db().$executeRawUnsafe('ALTER TABLE audit_events ENABLE TRIGGER USER'),
    ]);
    const r = await verifyChain();
    expect(r).toMatchObject({ ok: false, firstBrokenId: events[3]!.id.toString() });
  });
});
