import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { createHash } from 'node:crypto';
import { SYSTEM } from '@/lib/auth';
import { revokeToken } from '@/lib/admin/tokens';
import { db } from '@/lib/db';
import { AppError } from '@/lib/errors';
import { createIngestSql } from '@/lib/ingest/ingest-sql';
import { ingestBatch, INGEST_MAX_BODY_BYTES } from '@/lib/ingest/ingest-dead-letters';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { POST as postRaw } from '@/app/api/v1/sources/[source]/dead-letters/raw/route';
import { b64, BASE, ctx, jsonRequest, world, type World } from './deadletters-world';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const batch = (w: World, body: unknown, opts: { token?: string; source?: string; contentType?: string } = {}) =>
  postBatch(
    jsonRequest(`/api/v1/sources/${opts.source ?? 'orders'}/dead-letters`, opts.token ?? w.tokens.ingest.orders, body, { contentType: opts.contentType }),
    ctx({ source: opts.source ?? 'orders' }),
  );
const item = (messageId: string, payload: string | Uint8Array, extra: Record<string, unknown> = {}) => ({ messageId, payload: b64(payload), ...extra });
type Items = { items: { messageId: string; id: string; sha256: string; created: boolean }[] };
type ErrorBody = { error: { code: string; message: string; details?: Record<string, unknown> } };

/** `n` dead letters stored, and each counted open in its cluster once. */
async function expectStoredOnce(n: number): Promise<void> {
  expect(await db().deadLetter.count()).toBe(n);
  expect((await db().cluster.findMany()).reduce((sum, c) => sum + c.openCount, 0)).toBe(n);
}

describe('ingest API', () => {
  const w = {} as World;
  freshDatabase({ seed: async () => Object.assign(w, await world()) });

  it('stores a JSON batch byte-exact, answers in order, and a retried batch creates nothing new', async () => {
    const odd = Uint8Array.from([0xff, 0x00, 0xfe, 0x41]);
    const body = {
      deadLetters: [
        item('m-1', '{"order":13,"gift":true}', {
          contentType: 'application/json',
          headers: { 'x-tenant': 'acme', 'x-death': [{ queue: 'orders', count: 3 }] },
          reason: 'MaxReceives',
          error: { type: 'UnknownField', message: 'unknown field "gift" in order 13', stack: 'Error: x\n    at handle (/app/src/orders.ts:10:3)' },
          receiveCount: 3,
          enqueuedAt: '2026-11-01T10:00:00.000Z',
          firstFailedAt: '2026-11-01T10:00:01.000Z',
          deadAt: '2026-11-01T10:00:09.000Z',
          key: 'customer-7',
          correlationId: 'trace-abc',
          consumer: { name: 'order-handler', version: 'v1' },
          partition: 4,
          offset: '9007199254740993',
        }),
        item('m-2', odd),
        item('m-3', ''),
      ],
    };
    const r = await batch(w, body);
    expect(r.status).toBe(200);
    const first = (await r.json()) as Items;
    expect(first.items.map((i) => [i.messageId, i.created])).toEqual([
      ['m-1', true],
      ['m-2', true],
      ['m-3', true],
    ]);
    expect(first.items[1]!.sha256).toBe(sha(odd));
    expect(first.items[2]!.sha256).toBe(sha(''));

    const again = (await (await batch(w, body)).json()) as Items;
    expect(again.items.map((i) => i.created)).toEqual([false, false, false]);
    expect(again.items.map((i) => i.id)).toEqual(first.items.map((i) => i.id));
    expect(await db().deadLetter.count()).toBe(3);

    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(first.items[0]!.id) } });
    expect(row).toMatchObject({
      messageId: 'm-1',
      contentType: 'application/json',
      reason: 'MaxReceives',
      errorType: 'UnknownField',
      receiveCount: 3,
      orderingKey: 'customer-7',
      correlationId: 'trace-abc',
      consumerName: 'order-handler',
      consumerVersion: 'v1',
      partition: 4,
      offset: 9007199254740993n,
      status: 'open',
    });
    expect(row.headers).toEqual({ 'x-tenant': 'acme', 'x-death': [{ queue: 'orders', count: 3 }] });
    expect(row.deadAt.toISOString()).toBe('2026-11-01T10:00:09.000Z');
    expect(Buffer.from((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(first.items[1]!.id) } })).payload!)).toEqual(Buffer.from(odd));
    const cluster = await db().cluster.findFirstOrThrow({ where: { id: row.clusterId! } });
    expect(cluster.openCount).toBe(1);
  });

  it('takes NDJSON (blank lines and CRLF allowed) and large batches through the COPY path', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => JSON.stringify(item(`n-${i}`, `{"i":${i}}`, { error: { type: 'Boom', message: `failed ${i}` } })));
    const body = `${lines.slice(0, 150).join('\r\n')}\n\n${lines.slice(150).join('\n')}\n`;
    const r = await batch(w, body, { contentType: 'application/x-ndjson' });
    expect(r.status).toBe(200);
    const { items } = (await r.json()) as Items;
    expect(items).toHaveLength(300);
    expect(items.every((i) => i.created)).toBe(true);
    expect(items[299]!.messageId).toBe('n-299');
    expect(items[299]!.sha256).toBe(sha('{"i":299}'));
    // A retry mixing old and new ids (large enough for the COPY path): only the new ones are created.
    const retry = [...lines.slice(200), JSON.stringify(item('n-new', 'x'))].join('\n');
    const again = (await (await batch(w, retry, { contentType: 'application/x-ndjson' })).json()) as Items;
    expect(again.items.filter((i) => i.created).map((i) => i.messageId)).toEqual(['n-new']);
    await expectStoredOnce(301);
  });

  it('treats a repeated message id within one batch as one dead letter, small batch or large', async () => {
    const { items } = (await (await batch(w, { deadLetters: [item('dup', 'a'), item('dup', 'b')] })).json()) as Items;
    expect(items.map((i) => i.created)).toEqual([true, false]);
    expect(items[1]!.id).toBe(items[0]!.id);
    expect(items[1]!.sha256).toBe(sha('a'));
    const large = [...Array.from({ length: 99 }, (_, i) => item(`big-${i}`, `${i}`)), item('big-7', 'again')];
    const big = (await (await batch(w, { deadLetters: large })).json()) as Items;
    expect(big.items.filter((i) => i.created)).toHaveLength(99);
    expect(big.items[99]).toMatchObject({ messageId: 'big-7', created: false, id: big.items[7]!.id, sha256: sha('7') });
    await expectStoredOnce(100);
  });

  it('accepts URL-safe and unpadded base64', async () => {
    const bytes = Uint8Array.from([0xfb, 0xff, 0xbf, 0x01]);
    const urlSafe = Buffer.from(bytes).toString('base64url');
    const { items } = (await (await batch(w, { deadLetters: [{ messageId: 'u', payload: urlSafe }] })).json()) as Items;
    expect(items[0]!.sha256).toBe(sha(bytes));
  });

  it('ingests one raw payload with its own Content-Type and Triage-* headers', async () => {
    const payload = Uint8Array.from([0x00, 0xc3, 0x28, 0x0a, 0x3c]);
    const req = (id: string) =>
      new Request(`${BASE}/api/v1/sources/orders/dead-letters/raw`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${w.tokens.ingest.orders}`,
          'content-type': 'application/vnd.acme+binary',
          'triage-message-id': id,
          'triage-error-type': 'SchemaError',
          'triage-error-message': 'field "gift" is not allowed',
          'triage-reason': 'Rejected',
          'triage-header-x-tenant': 'acme',
        },
        body: payload,
      });
    const r = await postRaw(req('raw-1'), ctx({ source: 'orders' }));
    expect(r.status).toBe(201);
    const body = (await r.json()) as { id: string; sha256: string; created: boolean };
    expect(body).toMatchObject({ messageId: 'raw-1', sha256: sha(payload), created: true });
    const again = await postRaw(req('raw-1'), ctx({ source: 'orders' }));
    expect(again.status).toBe(200);
    expect(((await again.json()) as { created: boolean; id: string }).id).toBe(body.id);
    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(body.id) } });
    expect(Buffer.from(row.payload!)).toEqual(Buffer.from(payload));
    expect(row).toMatchObject({ contentType: 'application/vnd.acme+binary', reason: 'Rejected', errorType: 'SchemaError', headers: { 'x-tenant': 'acme' } });

    const missing = await postRaw(
      new Request(`${BASE}/api/v1/sources/orders/dead-letters/raw`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.tokens.ingest.orders}` },
        body: 'x',
      }),
      ctx({ source: 'orders' }),
    );
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).error.message).toContain('Triage-Message-Id');
    const badReason = req('raw-2');
    badReason.headers.set('triage-reason', 'Bored');
    const r2 = await postRaw(badReason, ctx({ source: 'orders' }));
    expect(r2.status).toBe(422);
    expect(((await r2.json()) as ErrorBody).error.message).toContain('Triage-Reason');
  });

  it("answers 401 for a missing, wrong, revoked or other source's token, and 404 for an unknown source", async () => {
    const body = { deadLetters: [item('a', 'x')] };
    expect((await batch(w, body, { token: '' })).status).toBe(401);
    expect((await batch(w, body, { token: 'tri_i_not-a-real-token' })).status).toBe(401);
    expect((await batch(w, body, { token: w.tokens.ingest.payments })).status).toBe(401);
    expect((await batch(w, body, { token: w.tokens.personal.admin })).status).toBe(401);
    const unknown = await batch(w, body, { source: 'no-such-source' });
    expect(unknown.status).toBe(404);
    const token = await db().apiToken.findFirstOrThrow({ where: { sourceId: w.sources.orders.id } });
    await revokeToken(SYSTEM, token.id);
    const revoked = await batch(w, body);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toContain('Bearer');
    expect(await db().deadLetter.count()).toBe(0);
  });

  it('marks the token used, not on every request', async () => {
    await batch(w, { deadLetters: [item('a', 'x')] });
    const t1 = await db().apiToken.findFirstOrThrow({ where: { sourceId: w.sources.orders.id } });
    expect(t1.lastUsedAt).not.toBeNull();
    await batch(w, { deadLetters: [item('b', 'x')] });
    const t2 = await db().apiToken.findFirstOrThrow({ where: { sourceId: w.sources.orders.id } });
    expect(t2.lastUsedAt).toEqual(t1.lastUsedAt);
  });

  it('refuses bad input with a clear error naming the item and field, and stores nothing of the batch', async () => {
    const good = item('ok', 'x');
    const cases: [unknown, string | undefined, number, RegExp][] = [
      ['{"deadLetters": [', undefined, 400, /not valid JSON/],
      [{ items: [] }, undefined, 422, /deadLetters/],
      [{ deadLetters: [good, { messageId: 'b', payload: 'not base64!' }] }, undefined, 422, /deadLetters\[1\]\.payload: not valid base64/],
      [{ deadLetters: [good, { payload: b64('x') }] }, undefined, 422, /deadLetters\[1\]\.messageId/],
      [{ deadLetters: [good, good, item('c', 'x', { receiveCount: -1 })] }, undefined, 422, /deadLetters\[2\]\.receiveCount/],
      [{ deadLetters: [item('c', 'x', { deadAt: 'yesterday' })] }, undefined, 422, /deadLetters\[0\]\.deadAt/],
      [{ deadLetters: [item('c\u0000d', 'x')] }, undefined, 422, /deadLetters\[0\]\.messageId/],
      [{ deadLetters: [item('c', 'x', { headers: { h: 'a\u0000b' } })] }, undefined, 422, /deadLetters\[0\]\.headers/],
      [{ deadLetters: [item('c', 'x', { reason: 'Bored' })] }, undefined, 422, /deadLetters\[0\]\.reason/],
      [`${JSON.stringify(good)}\n{"messageId": "x", oops}\n`, 'application/x-ndjson', 400, /Line 2 \(deadLetters\[1\]\)/],
      [{ deadLetters: [good] }, 'text/plain', 415, /application\/json/],
    ];
    for (const [body, contentType, status, message] of cases) {
      const r = await batch(w, body, { contentType });
      const e = (await r.json()) as ErrorBody;
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(e.error.message).toMatch(message);
    }
    const detailed = (await (await batch(w, { deadLetters: [good, { messageId: 'b', payload: '%%' }] })).json()) as ErrorBody;
    expect(detailed.error.details).toEqual({ index: 1, field: 'payload' });
    expect(await db().deadLetter.count()).toBe(0);
  });

  it("answers 413 for a payload over the source's limit and for a body over the total limit, without reading it all", async () => {
    await db().source.update({ where: { id: w.sources.orders.id }, data: { payloadLimitBytes: 1024 } });
    const r = await batch(w, { deadLetters: [item('small', 'x'), item('big', new Uint8Array(1025))] });
    expect(r.status).toBe(413);
    expect(((await r.json()) as ErrorBody).error.details).toMatchObject({ index: 1, field: 'payload' });
    const raw = await postRaw(
      new Request(`${BASE}/api/v1/sources/orders/dead-letters/raw`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.tokens.ingest.orders}`, 'triage-message-id': 'big' },
        body: new Uint8Array(1025),
      }),
      ctx({ source: 'orders' }),
    );
    expect(raw.status).toBe(413);

    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        sent += chunk.byteLength;
        c.enqueue(chunk);
      },
    });
    const huge = new Request(`${BASE}/api/v1/sources/orders/dead-letters`, {
      method: 'POST',
      headers: { authorization: `Bearer ${w.tokens.ingest.orders}`, 'content-type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    const big = await postBatch(huge, ctx({ source: 'orders' }));
    expect(big.status).toBe(413);
    expect(sent).toBeLessThan(INGEST_MAX_BODY_BYTES + 8 * chunk.byteLength);
    expect(await db().deadLetter.count()).toBe(0);
  });

  it('answers 503 with Retry-After when Postgres is unreachable', async () => {
    const down = createIngestSql('postgresql://triage@127.0.0.1:1/triage');
    try {
      const req = jsonRequest('/api/v1/sources/orders/dead-letters', w.tokens.ingest.orders, { deadLetters: [item('a', 'x')] });
      const e = await ingestBatch(req, 'orders', { sql: down }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } });
    } finally {
      await down.end({ timeout: 1 });
    }
  });
});
