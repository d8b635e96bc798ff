import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createSource } from '@/lib/sources/create-source';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { closeDb, db, pg } from '@/lib/db';
import { backlogSize, drainBacklog } from '@/lib/search';
import { resetDatabase } from '../support/db';

const bytes = (s: string) => new TextEncoder().encode(s);

async function source() {
  await createTeam(SYSTEM, { name: 'commerce' });
  return createSource(SYSTEM, { name: 'orders', team: 'commerce' });
}

const dl = (messageId: string, payload: Uint8Array, message = `member not found (loan ${1000 + messageId.charCodeAt(0)})`): NewDeadLetter => ({
  messageId,
  payload,
  reason: 'MaxReceives',
  errorType: 'MemberNotFound',
  errorMessage: message,
  receiveCount: 3,
  headers: { 'x-tenant': 'acme' },
});

/** How many dead letters the clusters count, all of them. */
const clustered = async () => (await db().cluster.findMany()).reduce((n, c) => n + c.count, 0);

describe('recording dead letters', () => {
  beforeEach(resetDatabase);
  afterAll(closeDb);

  it('stores the exact bytes with their SHA-256, idempotently', async () => {
    const s = await source();
    const odd = new Uint8Array([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28]);
    const first = await recordDeadLetters(s, [dl('m1', bytes('{"a":1}')), dl('m2', odd), dl('m3', new Uint8Array())]);
    expect(first.map((r) => r.created)).toEqual([true, true, true]);
    expect(first[1]!.sha256).toBe(createHash('sha256').update(odd).digest('hex'));
    const again = await recordDeadLetters(s, [dl('m2', odd), dl('m4', bytes('x')), dl('m4', bytes('x'))]);
    expect(again.map((r) => r.created)).toEqual([false, true, false]);
    expect(again[0]!.id).toBe(first[1]!.id);
    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(first[1]!.id) } });
    expect(Buffer.from(row.payload!)).toEqual(Buffer.from(odd));
    expect(row.headers).toEqual({ 'x-tenant': 'acme' });
    expect(await db().deadLetter.count()).toBe(4);
  });

  it('counts dead letters of one cause into one cluster, kept incrementally', async () => {
    const s = await source();
    await recordDeadLetters(s, [dl('a', bytes('1')), dl('b', bytes('2'))]);
    await recordDeadLetters(s, [dl('c', bytes('3')), dl('a', bytes('1'))]);
    await recordDeadLetters(s, [dl('d', bytes('4'), 'connection refused to 10.0.0.1:5432')]);
    const clusters = await db().cluster.findMany({ orderBy: { count: 'desc' } });
    expect(clusters.map((c) => [c.count, c.openCount])).toEqual([
      [3, 3],
      [1, 1],
    ]);
    const members = await db().deadLetter.groupBy({ by: ['clusterId'], _count: true });
    expect(members.map((m) => m._count).sort()).toEqual([1, 3]);
    const split = await db().clusterSource.findMany();
    expect(split.map((x) => x.count).sort()).toEqual([1, 3]);
  });

  it('writes a batch by binary COPY: exact bytes, ids as stored, idempotent, repeats answered with the first', async () => {
    const s = await source();
    const batch = Array.from({ length: 300 }, (_, i) =>
      dl(`b-${i}`, i % 3 === 0 ? new Uint8Array([0, 0xff, i % 256]) : bytes(`{"order":${i},"note":"ünïcødé ✓"}`)),
    );
    batch.push(dl('b-7', bytes('a repeat: the first occurrence wins')));
    const first = await recordDeadLetters(s, batch);
    expect(first.filter((r) => r.created)).toHaveLength(300);
    expect(first[300]).toMatchObject({ messageId: 'b-7', id: first[7]!.id, sha256: first[7]!.sha256, created: false });
    const stored = await db().deadLetter.findMany({
      where: { sourceId: s.id },
      select: { id: true, messageId: true, payload: true, payloadSha256: true, headers: true, failureHistory: true, status: true },
    });
    expect(stored).toHaveLength(300);
    const byId = new Map(stored.map((r) => [r.id.toString(), r]));
    for (const [i, r] of first.slice(0, 300).entries()) {
      const row = byId.get(r.id)!;
      expect(row.messageId).toBe(`b-${i}`);
      expect(Buffer.from(row.payload!).equals(Buffer.from(batch[i]!.payload))).toBe(true);
      expect(row.payloadSha256).toBe(createHash('sha256').update(batch[i]!.payload).digest('hex'));
    }
    expect(stored[0]).toMatchObject({
      headers: { 'x-tenant': 'acme' },
      status: 'open',
      failureHistory: [{ reason: 'MaxReceives', errorType: 'MemberNotFound', count: 1 }],
    });
    // The same batch again (a forwarder's retry): nothing new, the same ids.
    const again = await recordDeadLetters(s, batch);
    expect(again.filter((r) => r.created)).toHaveLength(0);
    expect(again.map((r) => r.id)).toEqual(first.map((r) => r.id));
    expect(await clustered()).toBe(300);
  });

  it('a batch that repeats some stored keys (a forwarder resending a window) creates only the new ones', async () => {
    const s = await source();
    const first = await recordDeadLetters(
      s,
      Array.from({ length: 100 }, (_, i) => dl(`w-${i}`, bytes(`first ${i}`))),
    );
    // Keys 50..149: the first half is stored, so the COPY that assumed all were new fails and reruns.
    const overlap = Array.from({ length: 100 }, (_, i) => dl(`w-${50 + i}`, bytes(`second ${50 + i}`)));
    const second = await recordDeadLetters(s, overlap);
    expect(second.map((r) => r.created)).toEqual([...Array(50).fill(false), ...Array(50).fill(true)]);
    expect(second.slice(0, 50).map((r) => r.id)).toEqual(first.slice(50).map((r) => r.id));
    // Stored keys keep their first bytes, and answer with them.
    expect(second[0]!.sha256).toBe(createHash('sha256').update(bytes('first 50')).digest('hex'));
    expect(await db().deadLetter.count()).toBe(150);
    expect(await clustered()).toBe(150);
    expect((await db().clusterSource.findMany()).reduce((n, c) => n + c.count, 0)).toBe(150);
    // The next batch of that source looks its keys up first; all of them new, all created.
    const third = await recordDeadLetters(
      s,
      Array.from({ length: 100 }, (_, i) => dl(`w-${150 + i}`, bytes(`third ${i}`))),
    );
    expect(third.every((r) => r.created)).toBe(true);
    expect(await db().deadLetter.count()).toBe(250);
    // Each new dead letter was queued for search once: the failed attempt left nothing behind.
    expect((await backlogSize()).count).toBe(250);
  });

  it('two batches racing for the same keys store each once, and each key is created by exactly one', async () => {
    const s = await source();
    // Their cluster exists already, so neither waits for the other to create it: both look up their
    // keys, find none, and COPY; the loser's COPY meets the winner's rows and its transaction reruns.
    await recordDeadLetters(s, [dl('r-warm', bytes('warm'))]);
    const keys = Array.from({ length: 400 }, (_, i) => `r-${i}`);
    const a = keys.slice(0, 300).map((k) => dl(k, bytes(`a ${k}`)));
    const b = keys.slice(100).map((k) => dl(k, bytes(`b ${k}`)));
    const [ra, rb] = await Promise.all([recordDeadLetters(s, a), recordDeadLetters(s, b)]);
    const createdBy = new Map<string, number>();
    for (const r of [...ra, ...rb]) if (r.created) createdBy.set(r.messageId, (createdBy.get(r.messageId) ?? 0) + 1);
    expect(createdBy.size).toBe(400);
    expect([...createdBy.values()].every((n) => n === 1)).toBe(true);
    expect(await db().deadLetter.count()).toBe(401);
    // Both answers name the stored row for a shared key.
    const shared = new Map(ra.map((r) => [r.messageId, r.id]));
    for (const r of rb) if (shared.has(r.messageId)) expect(r.id).toBe(shared.get(r.messageId));
    expect(await clustered()).toBe(401);
  });

  it('queues every new dead letter for the search indexer, which stores its searchable text', async () => {
    const s = await source();
    const small = [dl('t-1', bytes('{"order":"gift-417"}')), dl('t-2', new Uint8Array([0xc3, 0x28]))];
    const batch = Array.from({ length: 100 }, (_, i) => dl(`t-b${i}`, bytes(`parcel ${i} to Tallinn`)));
    await recordDeadLetters(s, small);
    await recordDeadLetters(s, batch);
    expect(await backlogSize()).toEqual({ count: 102, capped: false });
    expect(await db().deadLetterSearch.count()).toBe(0);
    expect(await drainBacklog({ limit: 40 })).toBe(102);
    expect(await backlogSize()).toEqual({ count: 0, capped: false });
    const search = await pg()<{ message_id: string; payload_text: string | null; error_text: string | null }[]>`
      SELECT d.message_id, s.payload_text, s.error_text FROM dead_letter_search s JOIN dead_letters d ON d.id = s.dead_letter_id`;
    const text = new Map(search.map((r) => [r.message_id, r]));
    expect(search).toHaveLength(102);
    expect(text.get('t-1')).toMatchObject({ payload_text: '{"order":"gift-417"}', error_text: expect.stringContaining('member not found') });
    expect(text.get('t-2')).toMatchObject({ payload_text: null });
    expect(text.get('t-b42')!.payload_text).toBe('parcel 42 to Tallinn');
  });

  it('a source or a cluster that dead letters refer to is never deleted (the database refuses it, as the foreign keys did)', async () => {
    const s = await source();
    const [r] = await recordDeadLetters(s, [dl('k1', bytes('{"a":1}'))]);
    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(r!.id) } });
    expect(row.sourceId).toBe(s.id);
    expect(row.clusterId).not.toBeNull();
    await expect(pg()`DELETE FROM sources WHERE id = ${s.id}::uuid`).rejects.toThrow(/never deleted/);
    await expect(pg()`DELETE FROM clusters WHERE id = ${row.clusterId!}::uuid`).rejects.toThrow(/never deleted/);
    expect(await db().source.count({ where: { id: s.id } })).toBe(1);
    expect(await db().cluster.count({ where: { id: row.clusterId! } })).toBe(1);
  });
});
