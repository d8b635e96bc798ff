// A bulk transform reads the selection in pages bounded by bytes, like export batches and redrive
// claims: a page of large payloads is cut to the bound, never 500 of them whole.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { previewTransform, startTransform } from '@/lib/redrive/edit';
import { world, type World } from './redrive-support';

const w = {} as World;
const PAYLOAD = 100 * 1024;
const BOUND = 300 * 1024;

describe('bulk transform pages', () => {
  freshDatabase({ seed: async () => Object.assign(w, await world()) });

  it('are bounded by bytes, and every dead letter is still read once', async () => {
    const blob = 'x'.repeat(PAYLOAD);
    const rows = await recordDeadLetters(
      w.orders,
      Array.from({ length: 12 }, (_, k) => ({
        messageId: `big-${k}`,
        payload: Buffer.from(JSON.stringify({ order: k, gift: true, blob })),
        reason: 'Rejected',
        errorType: 'SchemaError',
        errorMessage: 'unknown field "gift" in order',
      })),
    );
    const cluster = (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(rows[0]!.id) } })).clusterId!;
    const transform = [{ op: 'remove' as const, path: '$.gift' }];
    const pages: { rows: number; payloadBytes: number }[] = [];
    const hooks = { maxPageBytes: BOUND, onPage: (p: { rows: number; payloadBytes: number }) => pages.push(p) };

    const p = await previewTransform(w.support, { selection: { cluster }, transform }, hooks);
    expect(p).toMatchObject({ total: 12, applies: 12 });
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const page of pages) expect(page.rows === 1 || page.payloadBytes <= BOUND).toBe(true);
    expect(pages.reduce((a, page) => a + page.rows, 0)).toBe(12);

    pages.length = 0;
    // The copies are written a page at a time (their versions, then their items), never all held
    // at once: each write follows the page it came from, before the next page is read.
    const events: string[] = [];
    const writes: number[] = [];
    const r = await startTransform(w.support, { selection: { cluster }, transform, reason: 'v2 schema', ratePerSecond: 50 }, undefined, {
      ...hooks,
      onPage: (page) => {
        hooks.onPage(page);
        events.push(`read ${page.rows}`);
      },
      onCopiesWritten: (n: number) => {
        writes.push(n);
        events.push(`write ${n}`);
      },
    });
    expect(r).toMatchObject({ applies: 12, cannotApplyCount: 0 });
    expect(r.task.total).toBe(12);
    expect(pages.length).toBeGreaterThanOrEqual(4);
    for (const page of pages) expect(page.rows === 1 || page.payloadBytes <= BOUND).toBe(true);
    expect(writes.reduce((a, n) => a + n, 0)).toBe(12);
    expect(writes.length).toBeGreaterThanOrEqual(4);
    // The writing pass: read, write, read, write… (a counting pass reads the pages first).
    const pass = events.slice(events.findIndex((e) => e.startsWith('write')) - 1);
    for (const [k, e] of pass.entries()) expect(e.split(' ')[0], pass.join(', ')).toBe(k % 2 === 0 ? 'read' : 'write');
    // Every copy is a version, sent by the task in death order.
    const items = await db().redriveItem.findMany({ where: { taskId: r.task.id }, orderBy: { seq: 'asc' }, include: { version: true } });
    expect(items.map((i) => i.seq)).toEqual(Array.from({ length: 12 }, (_, k) => k + 1));
    // Recorded at once (one death time): death order is id order.
    expect(items.map((i) => i.deadLetterId.toString())).toEqual(rows.map((x) => x.id).sort((a, b) => Number(a) - Number(b)));
    expect(items.every((i) => i.version && !JSON.parse(Buffer.from(i.version.payload).toString()).gift)).toBe(true);
  });
});
