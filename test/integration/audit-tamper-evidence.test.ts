// Tamper evidence that input cannot break: text Postgres would not store as sent is refused at the
// door (422 naming the field), the hash is over exactly what Postgres stores (a property test of
// generated strings through append and verify), verify lists every break and goes on past one, a
// checkpoint is still written after a break, and an admin can acknowledge a known break.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { POST as postArchive } from '@/app/api/v1/dead-letters/[id]/archive/route';
import { GET as getDeadLetters } from '@/app/api/v1/dead-letters/route';
import { GET as getVerify } from '@/app/api/v1/audit/verify/route';
import { POST as postAcknowledge } from '@/app/api/v1/audit/breaks/[id]/acknowledge/route';
import { append, eventHash, SYSTEM_ACTOR, verifyChain, writeCheckpoint } from '@/lib/audit';
import { closeDb, db } from '@/lib/db';
import { newDeadLetter, ownSource, seedFixtures, type Fixtures } from '../security/fixtures';
import { resetDatabase } from '../support/db';
import { freshDatabase } from '../support/lifecycle';
import { asSuperuser } from '../support/audit';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const fx = {} as Fixtures;

/** A request as a script sends it: the body's bytes exactly as given (a JSON \ud800 escape stays an escape). */
async function call(handler: unknown, as: string, url: string, opts: { params?: Record<string, string>; body?: string } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${fx.users[as]!.token}` };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const init: RequestInit = { method: opts.body === undefined ? 'GET' : 'POST', headers, ...(opts.body !== undefined ? { body: opts.body } : {}) };
  const res = await (handler as Handler)(new Request(`http://127.0.0.1:3000${url}`, init), { params: Promise.resolve(opts.params ?? {}) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const auditCount = () => db().auditEvent.count();

async function appendOne(reason: string | null, after?: unknown) {
  return db().$transaction((tx) => append(tx, { actor: SYSTEM_ACTOR, action: 'test.event', reason, after }));
}

describe('tamper evidence against hostile text', () => {
  freshDatabase({ per: 'file', seed: async () => Object.assign(fx, await seedFixtures()) });

  it('refuses a reason with an unpaired surrogate or a NUL with a 422 naming the field, and writes nothing', async () => {
    const id = await newDeadLetter(ownSource(fx, fx.users['support@triage.local']!));
    const before = await auditCount();
    for (const [raw, what] of [
      ['{"reason":"bad deploy \\ud800 rolled back"}', /unpaired surrogate \(U\+D800\) at position 12/],
      ['{"reason":"bad deploy \\udc00"}', /unpaired surrogate \(U\+DC00\)/],
      ['{"reason":"nul \\u0000 here"}', /NUL character \(U\+0000\) at position 5/],
    ] as const) {
      const r = await call(postArchive, 'support@triage.local', `/api/v1/dead-letters/${id}/archive`, { params: { id }, body: raw });
      expect(r.status, raw).toBe(422);
      expect(r.body.error.code).toBe('unprocessable');
      expect(r.body.error.message).toMatch(/^reason /);
      expect(r.body.error.message).toMatch(what);
      expect(r.body.error.details.issues[0].path).toBe('reason');
    }
    // A key in a nested object is named by where it is.
    const nested = await call(postArchive, 'support@triage.local', `/api/v1/dead-letters/${id}/archive`, {
      params: { id },
      body: '{"reason":"ok","x":{"a":["fine","\\ud83d"]}}',
    });
    expect(nested.status).toBe(422);
    expect(nested.body.error.details.issues[0].path).toBe('x.a[1]');
    expect(await auditCount()).toBe(before);
    expect((await db().deadLetter.findFirstOrThrow({ where: { id: BigInt(id) } })).status).toBe('open');
    // A well-formed pair (an emoji) and other control characters are text: stored and verified exactly.
    const ok = await call(postArchive, 'support@triage.local', `/api/v1/dead-letters/${id}/archive`, {
      params: { id },
      body: '{"reason":"rolled back \\ud83d\\ude80 \\u0001\\u001f\\t done"}',
    });
    expect(ok.status).toBe(200);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'deadletter.archive', targetId: id } });
    expect(event.reason).toBe('rolled back \u{1F680} \u0001\u001f\t done');
    expect(await verifyChain({ checkpoints: [] })).toMatchObject({ ok: true, breakCount: 0 });
  });

  it('refuses a NUL in the query string with a 422 naming the parameter', async () => {
    const r = await call(getDeadLetters, 'support@triage.local', '/api/v1/dead-letters?q=a%00b');
    expect(r.status).toBe(422);
    expect(r.body.error.details.issues[0].path).toBe('q');
  });
});

describe('the hash is over what Postgres stores', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('round-trips generated strings of every plane, NUL, controls and lone surrogates through append and verify', async () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udfff', '\u0001', '\u007f', '\ufffe', '\u{10FFFF}', 'a', '\\', '"') }),
      fc.string({ unit: 'grapheme' }),
    );
    await fc.assert(
      fc.asyncProperty(hostile, fc.dictionary(hostile, hostile, { maxKeys: 3 }), async (reason, after) => {
        await appendOne(reason, { after, list: [reason] });
      }),
      { numRuns: 150 },
    );
    const r = await verifyChain({ checkpoints: [] });
    expect(r).toMatchObject({ ok: true, breakCount: 0, checked: await auditCount() });
    // A string that could not be stored as sent is stored as Postgres stores it (U+FFFD), and hashed so.
    await appendOne('a\ud800b\u0000c');
    expect((await db().auditEvent.findFirstOrThrow({ orderBy: { id: 'desc' } })).reason).toBe('a\uFFFDb\uFFFDc');
    expect((await verifyChain({ checkpoints: [] })).ok).toBe(true);
  });

  it('round-trips a 1 MB reason and a 1 MB detail exactly', async () => {
    const big = 'x\u{1F680}é\u0001'.repeat(200_000);
    await appendOne(big, { text: big });
    const row = await db().auditEvent.findFirstOrThrow({ orderBy: { id: 'desc' } });
    expect(row.reason).toBe(big);
    expect(await verifyChain({ checkpoints: [] })).toMatchObject({ ok: true, checked: 1 });
  });
});

describe('verify past a break, checkpoints after it, acknowledged breaks', () => {
  let file: string;
  beforeEach(async () => {
    await resetDatabase();
    Object.assign(fx, await seedFixtures());
    file = path.join(mkdtempSync(path.join(tmpdir(), 'triage-tamper-')), 'checkpoints.ndjson');
  });
  afterAll(closeDb);

  it('lists every break, not only the first, and a checkpoint is still written after one', async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 6; i++) ids.push((await appendOne(`event ${i}`)).id);
    // An event hashed over other text than was stored (the lone surrogate of an older release), and
    // a later edit behind the triggers: both must show.
    const legacy = await db().auditEvent.findUniqueOrThrow({ where: { id: ids[1]! } });
    const hashedOver = eventHash({ ...legacy, reason: 'bad deploy \ud800 rolled back' });
    await asSuperuser(
      `UPDATE audit_events SET reason = 'bad deploy \uFFFD rolled back' WHERE id = ${ids[1]}`,
      `UPDATE audit_events SET reason = 'edited later' WHERE id = ${ids[4]}`,
    );
    expect(hashedOver).not.toBe(legacy.hash);
    const r = await verifyChain({ checkpoints: [] });
    expect(r).toMatchObject({ ok: false, firstBrokenId: ids[1]!.toString(), breakCount: 2, unacknowledged: 2, checked: await auditCount() });
    expect(r.breaks.map((b) => [b.id, b.kind])).toEqual([
      [ids[1]!.toString(), 'content'],
      [ids[4]!.toString(), 'content'],
    ]);

    const cp = await writeCheckpoint({ file });
    expect(cp).toMatchObject({ written: true, checkpoint: { headId: ids[5]!.toString(), count: await auditCount() } });
    // The checkpoint does not bless the broken events: a full verify still lists them.
    expect((await verifyChain({ checkpointFile: file })).breakCount).toBe(2);
    // And it guards what follows: a cut tail after the break still shows.
    await appendOne('after the break');
    await writeCheckpoint({ file });
    await asSuperuser(`DELETE FROM audit_events WHERE id = (SELECT max(id) FROM audit_events)`);
    const cut = await verifyChain({ checkpointFile: file });
    expect(cut.breaks.map((b) => b.kind)).toEqual(['content', 'content', 'checkpoint']);
    expect(cut.breaks[2]!.problem).toMatch(/^tail cut/);
  });

  it('an admin acknowledges a break with a reason (audited); verify reports it as known and the rest on its own', async () => {
    const ids: bigint[] = [];
    for (let i = 0; i < 4; i++) ids.push((await appendOne(`event ${i}`)).id);
    await asSuperuser(`UPDATE audit_events SET reason = 'bad deploy \uFFFD rolled back' WHERE id = ${ids[1]}`);
    const id = ids[1]!.toString();

    const lead = await call(postAcknowledge, 'lead@triage.local', `/api/v1/audit/breaks/${id}/acknowledge`, { params: { id }, body: '{"reason":"x"}' });
    expect(lead.status).toBe(403);
    const noReason = await call(postAcknowledge, 'admin@triage.local', `/api/v1/audit/breaks/${id}/acknowledge`, { params: { id }, body: '{"reason":" "}' });
    expect(noReason.status).toBe(422);
    const notBroken = ids[2]!.toString();
    const intact = await call(postAcknowledge, 'admin@triage.local', `/api/v1/audit/breaks/${notBroken}/acknowledge`, {
      params: { id: notBroken },
      body: '{"reason":"x"}',
    });
    expect(intact.status).toBe(409);

    const ack = await call(postAcknowledge, 'admin@triage.local', `/api/v1/audit/breaks/${id}/acknowledge`, {
      params: { id },
      body: JSON.stringify({ reason: 'stored as U+FFFD by release 1.4; hashed over the surrogate' }),
    });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ eventId: id, kinds: ['content'] });
    const event = await db().auditEvent.findUniqueOrThrow({ where: { id: BigInt(ack.body.auditEventId) } });
    expect(event).toMatchObject({ action: 'audit.break.acknowledge', targetType: 'audit_event', targetId: id, actorEmail: 'admin@triage.local' });

    const v = await call(getVerify, 'auditor@triage.local', '/api/v1/audit/verify');
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ ok: true, breakCount: 1, unacknowledged: 0 });
    expect(v.body.breaks[0]).toMatchObject({
      id,
      kind: 'content',
      acknowledged: { by: 'admin@triage.local', reason: 'stored as U+FFFD by release 1.4; hashed over the surrogate' },
    });
    expect(v.body.firstBrokenId).toBeUndefined();

    // Acknowledged once is not acknowledged for good: a later change to the same event is a new break,
    // and a change elsewhere is one too.
    await asSuperuser(
      `UPDATE audit_events SET reason = 'changed again' WHERE id = ${ids[1]}`,
      `UPDATE audit_events SET reason = 'elsewhere' WHERE id = ${ids[3]}`,
    );
    const again = await verifyChain({ checkpoints: [] });
    expect(again).toMatchObject({ ok: false, firstBrokenId: id, unacknowledged: 2 });
    const twice = await call(postAcknowledge, 'admin@triage.local', `/api/v1/audit/breaks/${id}/acknowledge`, { params: { id }, body: '{"reason":"seen"}' });
    expect(twice.status).toBe(200);
    expect(await verifyChain({ checkpoints: [] })).toMatchObject({ ok: false, firstBrokenId: ids[3]!.toString(), unacknowledged: 1 });
  });
});
