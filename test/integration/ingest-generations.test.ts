// A forwarder's dead letter after a redrive is the next generation of the same message, as a
// connector's is: Triage redrives an ingest source's dead letter to its redrive URL with
// Triage-Message-Id and Triage-Redrive-Count; the forwarder, whose consumer fails it again, posts it
// back with them (batch fields or the raw endpoint's headers, passed through as they came) through
// the real routes, and it lands as generation 1 of the same message id, its retries absorbed.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { closeDb, db } from '@/lib/db';
import { closeIngestSql } from '@/lib/ingest/ingest-sql';
import { closeQueues } from '@/lib/queue';
import { startRedrive } from '@/lib/redrive';
import { startRedriveSupervisor, type RedriveSupervisor } from '@/lib/redrive/supervisor';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { POST as postRaw } from '@/app/api/v1/sources/[source]/dead-letters/raw/route';
import { resetDatabase } from '../support/db';
import { b64, BASE, ctx, jsonRequest, world, type World } from './deadletters-world';
import { RECEIVER_SECRET, receiver, type Receiver } from './redrive-support';
import { waitFor } from './runtime-support';

const SOURCE = 'partner-webhooks';
type Items = { items: { messageId: string; id: string; created: boolean }[] };
type ErrorBody = { error: { message: string; details?: Record<string, unknown> } };

const batch = (w: World, deadLetters: unknown[]) =>
  postBatch(jsonRequest(`/api/v1/sources/${SOURCE}/dead-letters`, w.tokens.ingest.partner, { deadLetters }), ctx({ source: SOURCE }));
const raw = (w: World, headers: Record<string, string>, body: string) =>
  postRaw(
    new Request(`${BASE}/api/v1/sources/${SOURCE}/dead-letters/raw`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.tokens.ingest.partner}`, 'content-type': 'application/json', ...headers },
      body,
    }),
    ctx({ source: SOURCE }),
  );

describe('ingest: generations after a redrive', () => {
  let w: World;
  let http: Receiver | undefined;
  let redrives: RedriveSupervisor | undefined;
  beforeEach(async () => {
    await resetDatabase();
    w = await world();
  });
  afterEach(async () => {
    await redrives?.stop();
    await http?.close();
    redrives = http = undefined;
  });
  afterAll(async () => {
    await closeIngestSql();
    await closeQueues();
    await closeDb();
  });

  it('a forwarder posting a redriven message that died again makes the next generation, by batch or raw, and a retry creates nothing', {
    timeout: 120_000,
  }, async () => {
    http = await receiver();
    await db().source.update({
      where: { id: w.sources.partner.id },
      data: { redriveUrl: http.url, redriveSecret: RECEIVER_SECRET, approvalThreshold: 1_000_000 },
    });
    const first = await batch(w, [
      { messageId: 'evt-1', payload: b64('{"event":1}'), error: { type: 'UnknownField', message: 'unknown field "gift"' } },
      { messageId: 'evt-2', payload: b64('{"event":2}'), error: { type: 'UnknownField', message: 'unknown field "gift"' } },
    ]);
    expect(first.status).toBe(200);

    await startRedrive(SYSTEM, { selection: { source: SOURCE }, ratePerSecond: 1_000 });
    redrives = await startRedriveSupervisor({ reconcileMs: 500 });
    await waitFor('both delivered', async () => http!.deliveries.length === 2, 60_000, 100);
    const delivered = (id: string) => http!.deliveries.find((d) => d.messageId === id)!;
    expect(delivered('evt-1')).toMatchObject({ redriveCount: '1', signed: true });

    // The forwarder's consumer fails both again; it posts one as a batch item and one raw, with
    // what the redrive gave it.
    const one = delivered('evt-1');
    const again = await batch(w, [
      {
        messageId: one.messageId,
        redriveCount: Number(one.redriveCount),
        payload: b64(one.body),
        error: { type: 'UnknownField', message: 'unknown field "gift"' },
      },
    ]);
    expect(again.status).toBe(200);
    const [created] = ((await again.json()) as Items).items;
    expect(created).toMatchObject({ messageId: 'evt-1', created: true });
    const two = delivered('evt-2');
    const rawAgain = await raw(
      w,
      { 'Triage-Message-Id': two.messageId, 'Triage-Redrive-Count': two.redriveCount, 'Triage-Error-Type': 'UnknownField' },
      two.body.toString(),
    );
    expect(rawAgain.status).toBe(201);

    const rows = await db().deadLetter.findMany({
      where: { sourceId: w.sources.partner.id },
      select: { messageId: true, generation: true, redriveCount: true, payload: true },
      orderBy: [{ messageId: 'asc' }, { generation: 'asc' }],
    });
    expect(rows.map((r) => [r.messageId, r.generation, r.redriveCount])).toEqual([
      ['evt-1', 0, 0],
      ['evt-1', 1, 1],
      ['evt-2', 0, 0],
      ['evt-2', 1, 1],
    ]);
    expect(Buffer.from(rows[1]!.payload!).toString()).toBe('{"event":1}');

    // The forwarder's retry of the same death is absorbed; a sender counting generations itself says so.
    const retried = await batch(w, [{ messageId: 'evt-1', redriveCount: 1, payload: b64(one.body) }]);
    expect(((await retried.json()) as Items).items[0]).toMatchObject({ id: created!.id, created: false });
    const counted = await batch(w, [{ messageId: 'evt-1', generation: 2, payload: b64(one.body) }]);
    expect(((await counted.json()) as Items).items[0]!.created).toBe(true);
    expect(await db().deadLetter.findFirst({ where: { messageId: 'evt-1', generation: 2 }, select: { redriveCount: true } })).toEqual({ redriveCount: 2 });
  });

  it('refuses a bad generation or redrive count naming the field, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp, string][] = [
      [{ redriveCount: -1 }, /deadLetters\[0\]\.redriveCount/, 'redriveCount'],
      [{ generation: 1.5 }, /deadLetters\[0\]\.generation/, 'generation'],
      [{ redriveCount: '1' }, /deadLetters\[0\]\.redriveCount/, 'redriveCount'],
      [{ generation: 2, redriveCount: 1 }, /deadLetters\[0\]\.generation: 2 differs from redriveCount 1/, 'generation'],
    ];
    for (const [extra, message, field] of cases) {
      const r = await batch(w, [{ messageId: 'evt-9', payload: b64('x'), ...extra }]);
      const e = (await r.json()) as ErrorBody;
      expect(r.status, JSON.stringify(extra)).toBe(422);
      expect(e.error.message).toMatch(message);
      expect(e.error.details).toEqual({ index: 0, field });
    }
    const rawBad = await raw(w, { 'Triage-Message-Id': 'evt-9', 'Triage-Redrive-Count': 'one' }, 'x');
    expect(rawBad.status).toBe(422);
    expect(((await rawBad.json()) as ErrorBody).error.message).toMatch(/^Triage-Redrive-Count: /);
    expect(await db().deadLetter.count()).toBe(0);
  });
});
