// What a dropped month leaves behind, and months before the oldest partition (docs/design.md
// "Partitioning"), on the real Postgres:
// - a redriven message whose previous generation became a tombstone keeps its redrive count (the
//   BullMQ connector's loop guard reads it from the generations held);
// - a dead letter that died months ago lands in the DEFAULT partition; the maintenance job gives its
//   month a partition, and retention drops that month whole once it is decided and past retention,
//   the SLA board's counts staying right; a month a crashed drop left detached does not stop that
//   (its name is still taken until the drop is finished);
// - GET /api/v1/dead-letters/{id} (and its payload) of a dropped dead letter answers 410 Gone with its
//   tombstone, as the OpenAPI document says, and the page's tombstone view shows it; another team's
//   answers 404.
import { Ajv2020 } from 'ajv/dist/2020';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { DAY, manualClock } from '@/lib/clock';
import { assignGenerations, heldOf } from '@/lib/connectors/bullmq/import';
import { db } from '@/lib/db';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import type { DeadLetterTombstoneView } from '@/lib/deadletters/get-tombstone';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { dropExpiredPartitions, ensurePartitions, listPartitions, maintainPartitions } from '@/lib/retention/partitions';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { GET as getDetail } from '@/app/api/v1/dead-letters/[id]/route';
import { GET as getPayload } from '@/app/api/v1/dead-letters/[id]/payload/route';
import { GET as getOpenApi } from '@/app/api/v1/openapi/route';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { TombstoneView } from '@/app/(dashboard)/dead-letters/[id]/tombstone-view';
import { b64, ctx, getRequest, jsonRequest, world } from './deadletters-world';
import { partitionOf, worldWithAugustDeadLetter } from './partition-support';
import { deadLetter } from './sla-fixtures';

const monthStart = (t: Date, n = 0) => new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + n, 1));
const yyyymm = (t: Date) => `${t.getUTCFullYear()}${String(t.getUTCMonth() + 1).padStart(2, '0')}`;

/** A dead letter of March 2026 decided on March 6 (`status`, by `decidedById`), then its month dropped whole past retention on June 10. */
async function decidedThenDropped(id: string, status: 'redriven' | 'discarded', decidedById: string, reason: string): Promise<void> {
  const at = new Date('2026-03-06T00:00:00Z');
  await db().$transaction((tx) => closeDeadLetters(tx, [BigInt(id)], status, { from: ['open'], decidedById, reason, at }));
  const clock = manualClock(new Date('2026-06-10T00:00:00Z'));
  expect((await dropExpiredPartitions(clock)).filter((d) => d.rows > 0)).toEqual([{ name: 'dead_letters_p202603', rows: 1 }]);
}

describe('tombstones of dropped months', () => {
  freshDatabase({ partitions: true });

  it("a message redriven again after its previous generation's month was dropped keeps its redrive count (the loop guard)", async () => {
    const w = await world();
    const source = w.sources.orders;
    await ensurePartitions(manualClock(new Date('2026-03-01T00:00:00Z')), 0);
    // Generation 2 of a job Triage redrove twice before; Triage redrove it once more, and the month went.
    const [old] = await recordDeadLetters(source, [
      deadLetter({ messageId: 'job-7', deadAt: new Date('2026-03-05T00:00:00Z'), generation: 2, redriveCount: 2 }),
    ]);
    const task = await db().redriveTask.create({ data: { sourceId: source.id, status: 'completed', selection: { ids: [old!.id] }, total: 1 } });
    await db().redriveItem.create({ data: { taskId: task.id, seq: 0, deadLetterId: BigInt(old!.id), state: 'acknowledged', attempts: 1 } });
    await decidedThenDropped(old!.id, 'redriven', w.actors.support.userId, 'fixed');
    expect(await db().deadLetterTombstone.findUniqueOrThrow({ where: { id: BigInt(old!.id) } })).toMatchObject({ generation: 2, redriveCount: 2 });

    // The job fails again: the connector's next generation counts on from the tombstone, not from 0.
    const held = await heldOf(source.id, ['job-7']);
    expect(held.get('job-7')).toEqual([{ generation: 2, deadAtMs: Date.parse('2026-03-05T00:00:00Z'), redriveCount: 2, redriven: true }]);
    const { fresh } = assignGenerations([deadLetter({ messageId: 'job-7', deadAt: new Date('2026-06-09T00:00:00Z') })], held);
    expect(fresh.map((d) => [d.generation, d.redriveCount])).toEqual([[3, 3]]);
  });

  it('a dead letter that died 5 months ago gets its month from the maintenance job, which drops it whole after retention', async () => {
    const w = await world();
    const now = new Date();
    const clock = manualClock(now);
    const month = monthStart(now, -5);
    const name = `dead_letters_p${yyyymm(month)}`;
    const post = async (messageId: string, deadAt: Date) => {
      const res = await postBatch(
        jsonRequest('/api/v1/sources/orders/dead-letters', w.tokens.ingest.orders, {
          deadLetters: [{ messageId, payload: b64(`{"id":"${messageId}"}`), deadAt: deadAt.toISOString() }],
        }),
        ctx({ source: 'orders' }),
      );
      expect(res.status).toBeLessThan(300);
      return ((await res.json()) as { items: { id: string }[] }).items[0]!.id;
    };
    const old = await post('late-1', new Date(month.getTime() + 10 * DAY));
    const fresh = await post('fresh-1', now);
    expect(await partitionOf(old)).toBe('dead_letters_default');

    // The maintenance job: a partition for the month the DEFAULT holds a row for, the row moved into it.
    const first = await maintainPartitions(clock);
    expect(first.created).toContain(name);
    expect(first.dropped.filter((d) => d.rows > 0)).toEqual([]);
    expect(await partitionOf(old)).toBe(name);
    const [inDefault] = await db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM dead_letters_default`;
    expect(inDefault?.n).toBe(0);

    // Past its retention (14 days from its dead time): the sweep expires it, the month goes whole.
    expect((await sweepExpired(clock)).expired).toBe(1);
    const board = async () =>
      (await getSlaBoard(SYSTEM, { clock })).map((r) => [r.source.name, r.openCount, r.expireUndecided, r.expiringSoon, r.nextExpiryAt?.toISOString() ?? null]);
    const before = await board();
    expect(before.find((r) => r[0] === 'orders')?.[1]).toBe(1);
    const second = await maintainPartitions(clock);
    expect(second.dropped).toEqual([{ name, rows: 1 }]);
    expect((await listPartitions()).map((p) => p.name)).not.toContain(name);
    expect(await db().deadLetterTombstone.findUniqueOrThrow({ where: { id: BigInt(old) } })).toMatchObject({ status: 'expired', messageId: 'late-1' });
    expect(await board()).toEqual(before);
    expect(await partitionOf(fresh)).toBe(`dead_letters_p${yyyymm(now)}`);
    // Nothing is created again for it, and nothing else goes.
    expect(await maintainPartitions(clock)).toMatchObject({ created: [], dropped: [] });
  });

  it('a late dead letter of a month a crashed drop left detached gets a month of its own, and the leftover is finished', async () => {
    const { sources, august: done } = await worldWithAugustDeadLetter();
    const clock = manualClock(new Date('2026-10-10T00:00:00Z'));
    await sweepExpired(clock);
    await db().$executeRawUnsafe('ALTER TABLE dead_letters DETACH PARTITION dead_letters_p202608');
    // Detached, so a late one of that month lands in the DEFAULT partition.
    const [late] = await recordDeadLetters(sources.orders, [deadLetter({ deadAt: new Date('2026-08-20T00:00:00Z') })]);
    expect(await partitionOf(late!.id)).toBe('dead_letters_default');
    const run = await maintainPartitions(clock);
    const august = run.created.filter((n) => n.startsWith('dead_letters_p202608'));
    expect(august).toEqual([expect.stringMatching(/^dead_letters_p202608_\d+$/)]);
    expect(run.dropped).toContainEqual({ name: 'dead_letters_p202608', rows: 1 });
    expect(await db().deadLetterTombstone.count({ where: { id: BigInt(done!.id) } })).toBe(1);
    expect(await partitionOf(late!.id)).toBe(august[0]);
  });

  it('GET of a dropped dead letter answers 410 Gone with its tombstone (404 for another team); the document says so', async () => {
    const w = await world();
    await ensurePartitions(manualClock(new Date('2026-03-01T00:00:00Z')), 0);
    const [gone] = await recordDeadLetters(w.sources.orders, [deadLetter({ messageId: 'gone-1', deadAt: new Date('2026-03-05T00:00:00Z'), errorType: 'Bad' })]);
    await decidedThenDropped(gone!.id, 'discarded', w.actors.lead.userId, 'invalid order');

    const detail = async (who: keyof typeof w.tokens.personal, id = gone!.id) => {
      const res = await getDetail(getRequest(`/api/v1/dead-letters/${id}`, w.tokens.personal[who]), ctx({ id }));
      return { status: res.status, body: (await res.json()) as { error: { code: string; message: string; details?: { tombstone: Record<string, unknown> } } } };
    };
    const answer = await detail('support');
    expect(answer.status).toBe(410);
    expect(answer.body.error.code).toBe('gone');
    expect(answer.body.error.message).toMatch(/dropped by retention on 2026-06-10/);
    expect(answer.body.error.message).toContain('orders');
    expect(answer.body.error.details?.tombstone).toMatchObject({
      id: gone!.id,
      source: { name: 'orders', team: 'commerce' },
      messageId: 'gone-1',
      status: 'discarded',
      errorType: 'Bad',
      deadAt: '2026-03-05T00:00:00.000Z',
      droppedAt: '2026-06-10T00:00:00.000Z',
      sha256: gone!.sha256,
      decision: { decidedBy: { id: w.actors.lead.userId, email: 'lead@example.com' }, decidedAt: '2026-03-06T00:00:00.000Z', reason: 'invalid order' },
    });
    // Another team's tombstone is no more visible than its dead letter was; an id that never was is a 404.
    expect((await detail('financeSupport')).status).toBe(404);
    expect((await detail('auditor')).status).toBe(410);
    expect((await detail('support', '999999999')).status).toBe(404);
    const payload = await getPayload(getRequest(`/api/v1/dead-letters/${gone!.id}/payload`, w.tokens.personal.support), ctx({ id: gone!.id }));
    expect(payload.status).toBe(410);

    // The page shows the tombstone where it said "not found".
    const html = renderToString(createElement(TombstoneView, { t: answer.body.error.details!.tombstone as DeadLetterTombstoneView }));
    expect(html).toContain('data-testid="tombstone"');
    expect(html).toMatch(/Dropped by retention on <strong>2026-06-10T00:00:00.000Z<\/strong>/);
    expect(html).toContain('invalid order');

    // The 410 body is the document's.
    const doc = (await getOpenApi().json()) as Record<string, unknown>;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(doc, 'openapi');
    const validate = ajv.getSchema(
      `openapi#/paths/${encodeURIComponent('~1api~1v1~1dead-letters~1{id}')}/get/responses/410/content/${encodeURIComponent('application~1json')}/schema`,
    )!;
    expect(validate(answer.body), JSON.stringify(validate.errors)).toBe(true);
  });
});
