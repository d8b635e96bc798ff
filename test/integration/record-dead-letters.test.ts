import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { SYSTEM } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createSource } from '@/lib/sources/create-source';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/deadletters/record-dead-letters';
import { closeDb, db } from '@/lib/db';
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
    expect(row.payloadText).toBeNull();
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
});
