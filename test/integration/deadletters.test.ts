import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { db } from '@/lib/db';
import { verifyChain } from '@/lib/audit';
import { recordDeadLetters, type NewDeadLetter, type RecordedDeadLetter } from '@/lib/intake/record-dead-letters';
import { countDeadLetters, listDeadLetters } from '@/lib/deadletters/list-dead-letters';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import { GET as getSourceList } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { GET as getDetail } from '@/app/api/v1/dead-letters/[id]/route';
import { GET as getPayload } from '@/app/api/v1/dead-letters/[id]/payload/route';
import { POST as postArchive } from '@/app/api/v1/dead-letters/[id]/archive/route';
import { POST as postDiscard } from '@/app/api/v1/dead-letters/[id]/discard/route';
import { POST as postReveal } from '@/app/api/v1/dead-letters/[id]/reveal/route';
import { POST as postPreview } from '@/app/api/v1/dead-letters/bulk/preview/route';
import { POST as postBulkArchive } from '@/app/api/v1/dead-letters/bulk/archive/route';
import { GET as getExport } from '@/app/api/v1/dead-letters/export/route';
import { GET as getOpenApi } from '@/app/api/v1/openapi/route';
import { drainBacklog } from '@/lib/search';
import { pg } from '@/lib/db';
import { repairErrorTypes } from '@/lib/intake/error-types';
import { ERROR_TYPES_PER_SOURCE } from '@/lib/deadletters/query';
import { freshDatabase } from '../support/lifecycle';
import { ctx, getRequest, jsonRequest, listAs, world, type World } from './deadletters-world';

const bytes = (s: string) => new TextEncoder().encode(s);
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const T0 = Date.parse('2026-11-20T12:00:00.000Z');

function dl(i: number, extra: Partial<NewDeadLetter> = {}): NewDeadLetter {
  return {
    messageId: `m-${i}`,
    payload: bytes(`{"order":${i},"note":"parcel ${i}"}`),
    contentType: 'application/json',
    reason: i % 3 === 0 ? 'Rejected' : 'MaxReceives',
    errorType: i % 2 === 0 ? 'UnknownField' : 'Timeout',
    errorMessage: i % 2 === 0 ? `unknown field "gift" in order ${i}` : `upstream timed out after ${i}ms`,
    receiveCount: 3,
    deadAt: new Date(T0 + i * 1000),
    ...extra,
  };
}

type Page = {
  deadLetters: { id: string; messageId: string; source: string; status: string; preview: string | null; masked: boolean }[];
  nextCursor: string | null;
  count?: { count: number; capped: boolean };
};
type ErrorBody = { error: { code: string; message: string } };

describe('reading and deciding dead letters', () => {
  let w: World;
  let orders: RecordedDeadLetter[];
  let payments: RecordedDeadLetter[];

  freshDatabase({
    seed: async () => {
      w = await world();
      orders = await recordDeadLetters(
        w.sources.orders,
        Array.from({ length: 25 }, (_, i) => dl(i)),
      );
      payments = await recordDeadLetters(w.sources.payments, [dl(100, { errorMessage: 'card declined', errorType: 'Declined' })]);
    },
  });

  const list = (who: keyof World['tokens']['personal'], query: string) => listAs<Page>(w, who, query);

  it('pages through every match once, newest or oldest first, with a keyset cursor', async () => {
    for (const sort of ['newest', 'oldest'] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const { status, body }: { status: number; body: Page } = await list('support', `sort=${sort}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        expect(status).toBe(200);
        seen.push(...body.deadLetters.map((d) => d.messageId));
        cursor = body.nextCursor;
      } while (cursor);
      const expected = Array.from({ length: 25 }, (_, i) => `m-${i}`);
      expect(seen).toEqual(sort === 'newest' ? expected.reverse() : expected);
    }
    expect((await list('support', 'cursor=garbage')).status).toBe(400);
  });

  it('filters by source, status, reason, error type, cluster, time range and text, with a capped count', async () => {
    const ids = (p: Page) => p.deadLetters.map((d) => d.messageId).sort();
    expect((await list('auditor', 'source=payments')).body.deadLetters.map((d) => d.messageId)).toEqual(['m-100']);
    expect((await list('auditor', 'errorType=Timeout&count=true')).body.count).toEqual({ count: 12, capped: false });
    expect(ids((await list('support', 'reason=Rejected&errorType=UnknownField')).body)).toEqual(['m-0', 'm-12', 'm-18', 'm-24', 'm-6']);
    await drainBacklog(); // the search indexer has run
    expect(ids((await list('support', 'q=order%2017')).body)).toEqual([]);
    expect(ids((await list('support', 'q=parcel%2017')).body)).toEqual(['m-17']);
    expect(ids((await list('support', 'q=timed%20out%20after%2013ms')).body)).toEqual(['m-13']);
    expect(ids((await list('support', `from=${new Date(T0 + 20_000).toISOString()}&to=${new Date(T0 + 23_000).toISOString()}`)).body)).toEqual([
      'm-20',
      'm-21',
      'm-22',
    ]);
    expect((await list('support', 'messageId=m-4')).body.deadLetters).toHaveLength(1);
    const cluster = await db().deadLetter.findFirstOrThrow({ where: { messageId: 'm-2' } });
    const members = await listDeadLetters(w.actors.support, { clusterId: cluster.clusterId! }, null, { limit: 100 });
    expect(members.deadLetters.map((d) => d.messageId).sort()).toEqual([
      'm-0',
      'm-10',
      'm-12',
      'm-14',
      'm-16',
      'm-18',
      'm-2',
      'm-20',
      'm-22',
      'm-24',
      'm-4',
      'm-6',
      'm-8',
    ]);
    expect(await countDeadLetters(w.actors.support, {}, { cap: 10 })).toEqual({ count: 10, capped: true });
    expect((await list('support', 'status=bogus')).status).toBe(422);
    expect((await list('support', 'q=ab')).status).toBe(422);
  });

  it('the error-type filter matches a part of the type in any case, as the OpenAPI document says', async () => {
    await recordDeadLetters(w.sources.orders, [dl(40, { errorType: 'SocketTimeoutException' }), dl(41, { errorType: 'Rate%Limit' })]);
    const ids = (p: Page) => p.deadLetters.map((d) => d.messageId).sort();
    // A part of the type, any case: "timeout" finds Timeout and SocketTimeoutException alike.
    const part = await list('support', 'errorType=timeout&count=true&limit=500');
    expect(part.status).toBe(200);
    expect(part.body.count).toEqual({ count: 13, capped: false });
    expect(ids(part.body)).toContain('m-40');
    expect(ids((await list('support', 'source=orders&status=open&errorType=SOCKETTIMEOUT')).body)).toEqual(['m-40']);
    // % and _ are the text typed, not wildcards.
    expect(ids((await list('support', 'errorType=%25')).body)).toEqual(['m-41']);
    expect(ids((await list('support', 'errorType=Time_ut')).body)).toEqual([]);

    const doc = (await getOpenApi().json()) as {
      paths: Record<string, { get?: { parameters?: { name: string; description?: string }[] } }>;
    };
    const param = doc.paths['/api/v1/dead-letters']!.get!.parameters!.find((p) => p.name === 'errorType');
    expect(param?.description).toMatch(/part of the error type/i);
    expect(param?.description).toMatch(/any case/i);
    expect(param?.description).not.toMatch(/exact/i);
    // The cluster list's filter of the same name matches the same way (ILIKE on the cluster's type).
    const clusters = doc.paths['/api/v1/clusters']!.get!.parameters!.find((p) => p.name === 'errorType');
    expect(clusters?.description).toBe(param?.description);
  });

  it('the error-type filter finds a type whatever wrote it: missing from the summary, it is back after the maintenance repair', async () => {
    await recordDeadLetters(w.sources.orders, [dl(42, { errorType: 'LedgerLockedException' })]);
    const ids = async (q: string) => (await list('support', q)).body.deadLetters.map((d) => d.messageId);
    expect(await ids('errorType=ledgerlocked')).toEqual(['m-42']);
    // As a writer of the version before the summary leaves it (or a raw load): the type not noted.
    await db().$executeRaw`DELETE FROM source_error_types WHERE error_type = 'LedgerLockedException'`;
    expect(await ids('errorType=ledgerlocked')).toEqual([]);
    expect(await repairErrorTypes(pg())).toBe(1);
    expect(await ids('errorType=ledgerlocked')).toEqual(['m-42']);
    expect(await repairErrorTypes(pg())).toBe(0);
  });

  it('a source with more error types than the filter resolves still filters by a part of the type', async () => {
    const many = Array.from({ length: ERROR_TYPES_PER_SOURCE + 5 }, (_, i) => dl(1_000 + i, { errorType: `Generated${String(i).padStart(4, '0')}Error` }));
    await recordDeadLetters(w.sources.orders, [...many, dl(2_000, { errorType: 'NeedleInHaystackError' })]);
    const page = await list('support', 'source=orders&status=open&errorType=needleinhay');
    expect(page.status).toBe(200);
    expect(page.body.deadLetters.map((d) => d.messageId)).toEqual(['m-2000']);
    expect((await list('support', 'source=orders&errorType=generated0017&count=true')).body.count).toEqual({ count: 1, capped: false });
  });

  it("scopes reads to the team: another team's dead letter is a 404, the auditor sees all", async () => {
    expect((await list('support', 'source=payments')).body.deadLetters).toEqual([]);
    expect((await list('support', '')).body.deadLetters.every((d) => d.source === 'orders')).toBe(true);
    const financeId = payments[0]!.id;
    for (const h of [getDetail, getPayload]) {
      const r = await h(getRequest(`/api/v1/dead-letters/${financeId}`, w.tokens.personal.support), ctx({ id: financeId }));
      expect(r.status).toBe(404);
    }
    const auditor = await getDetail(getRequest(`/api/v1/dead-letters/${financeId}`, w.tokens.personal.auditor), ctx({ id: financeId }));
    expect(auditor.status).toBe(200);
    const bySource = await getSourceList(getRequest('/api/v1/sources/payments/dead-letters', w.tokens.personal.financeSupport), ctx({ source: 'payments' }));
    expect(((await bySource.json()) as Page).deadLetters.map((d) => d.messageId)).toEqual(['m-100']);
  });

  it('answers all metadata and the exact payload bytes', async () => {
    const id = orders[3]!.id;
    const r = await getDetail(getRequest(`/api/v1/dead-letters/${id}`, w.tokens.personal.support), ctx({ id }));
    const d = (await r.json()) as Record<string, unknown>;
    expect(d).toMatchObject({
      id,
      messageId: 'm-3',
      source: { name: 'orders', team: 'commerce' },
      status: 'open',
      reason: 'Rejected',
      errorType: 'Timeout',
      sha256: sha(bytes('{"order":3,"note":"parcel 3"}')),
      payloadSize: 29,
      payloadAvailable: true,
      receiveCount: 3,
      failureHistory: [{ reason: 'Rejected', errorType: 'Timeout', count: 1 }],
      decision: { decidedBy: null, reason: null },
    });
    const p = await getPayload(getRequest(`/api/v1/dead-letters/${id}/payload`, w.tokens.personal.support), ctx({ id }));
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toBe('application/json');
    expect(p.headers.get('content-length')).toBe('29');
    expect(p.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(p.headers.get('x-content-type-options')).toBe('nosniff');
    expect(sha(new Uint8Array(await p.arrayBuffer()))).toBe(d.sha256);
    const bad = await getDetail(getRequest('/api/v1/dead-letters/not-a-number', w.tokens.personal.support), ctx({ id: 'not-a-number' }));
    expect(bad.status).toBe(404);
  });

  it('archives with a reason, audited in the same transaction, and keeps cluster open counts right', async () => {
    const id = orders[2]!.id;
    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) } });
    const before = await db().cluster.findUniqueOrThrow({ where: { id: row.clusterId! } });
    const archive = (who: keyof World['tokens']['personal'], body: unknown, target = id) =>
      postArchive(jsonRequest(`/api/v1/dead-letters/${target}/archive`, w.tokens.personal[who], body), ctx({ id: target }));

    expect((await archive('auditor', { reason: 'looks done' })).status).toBe(403);
    expect((await archive('support', {})).status).toBe(422);
    expect((await archive('support', { reason: '   ' })).status).toBe(422);
    expect((await archive('support', { reason: 'x' }, payments[0]!.id)).status).toBe(404);
    const ok = await archive('support', { reason: 'order 2 was re-entered by hand' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id, status: 'archived' });
    const again = await archive('support', { reason: 'twice' });
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorBody).error.message).toContain('archived');

    const after = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) } });
    expect(after).toMatchObject({ status: 'archived', decidedById: w.actors.support.userId, decisionReason: 'order 2 was re-entered by hand' });
    expect(after.payload).not.toBeNull();
    expect((await db().cluster.findUniqueOrThrow({ where: { id: row.clusterId! } })).openCount).toBe(before.openCount - 1);
    const split = await db().clusterSource.findUniqueOrThrow({ where: { clusterId_sourceId: { clusterId: row.clusterId!, sourceId: w.sources.orders.id } } });
    expect(split.openCount).toBe(before.openCount - 1);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: 'deadletter.archive' } });
    expect(event).toMatchObject({
      actorEmail: 'support@example.com',
      targetType: 'deadletter',
      targetId: id,
      reason: 'order 2 was re-entered by hand',
      teamId: w.sources.orders.teamId,
    });
    const detail = (await (await getDetail(getRequest(`/api/v1/dead-letters/${id}`, w.tokens.personal.lead), ctx({ id }))).json()) as {
      decision: { decidedBy: { email: string }; reason: string };
      history: { action: string }[];
    };
    expect(detail.decision).toMatchObject({ decidedBy: { email: 'support@example.com' }, reason: 'order 2 was re-entered by hand' });
    expect(detail.history.map((h) => h.action)).toEqual(['deadletter.archive']);
    expect((await verifyChain()).ok).toBe(true);
  });

  it('discards (lead only): payload deleted, tombstone kept, download answers 410', async () => {
    const id = orders[5]!.id;
    const discard = (who: keyof World['tokens']['personal']) =>
      postDiscard(jsonRequest(`/api/v1/dead-letters/${id}/discard`, w.tokens.personal[who], { reason: 'test data from a load test' }), ctx({ id }));
    expect((await discard('support')).status).toBe(403);
    expect((await discard('lead')).status).toBe(200);
    const row = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) } });
    expect(row).toMatchObject({ status: 'discarded', payload: null, payloadSize: 29 });
    // Its text leaves search too, whether or not the search indexer had reached it.
    expect(await db().deadLetterSearch.findUnique({ where: { deadLetterId: BigInt(id) } })).toMatchObject({ payloadText: null });
    await drainBacklog();
    expect(await db().deadLetterSearch.findUnique({ where: { deadLetterId: BigInt(id) } })).toMatchObject({ payloadText: null });
    expect(row.payloadSha256).toBe(orders[5]!.sha256);
    const p = await getPayload(getRequest(`/api/v1/dead-letters/${id}/payload`, w.tokens.personal.lead), ctx({ id }));
    expect(p.status).toBe(410);
    expect(await db().auditEvent.count({ where: { action: 'deadletter.discard', targetId: id } })).toBe(1);
  });

  it('archives a selection in bulk after a preview: one audit event with the selection and count', async () => {
    await postArchive(jsonRequest(`/api/v1/dead-letters/${orders[0]!.id}/archive`, w.tokens.personal.support, { reason: 'done' }), ctx({ id: orders[0]!.id }));
    const selection = { filter: { source: ['orders'], errorType: 'UnknownField' } };
    const preview = await postPreview(jsonRequest('/api/v1/dead-letters/bulk/preview', w.tokens.personal.support, { decision: 'archive', selection }), ctx({}));
    expect(await preview.json()).toMatchObject({ count: 12, overLimit: false });
    expect(
      (await postPreview(jsonRequest('/api/v1/dead-letters/bulk/preview', w.tokens.personal.support, { decision: 'discard', selection }), ctx({}))).status,
    ).toBe(403);
    const clustersBefore = await db().cluster.findMany();
    const r = await postBulkArchive(
      jsonRequest('/api/v1/dead-letters/bulk/archive', w.tokens.personal.support, { selection, reason: 'fixed in handler v2; replayed upstream' }),
      ctx({}),
    );
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ count: 12, status: 'archived' });
    expect(await db().deadLetter.count({ where: { status: 'archived' } })).toBe(13);
    const events = await db().auditEvent.findMany({ where: { action: 'deadletter.archive' }, orderBy: { id: 'asc' } });
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      count: 12,
      selection: { filter: { source: ['orders'], errorType: 'UnknownField', sort: 'newest' } },
      teamId: w.sources.orders.teamId,
    });
    const openBefore = clustersBefore.reduce((n, c) => n + c.openCount, 0);
    const openAfter = (await db().cluster.findMany()).reduce((n, c) => n + c.openCount, 0);
    expect(openAfter).toBe(openBefore - 12);
    expect(openAfter).toBe(await db().deadLetter.count({ where: { status: { in: ['open', 'redriving'] } } }));

    // Ids outside the actor's team are not part of the selection.
    const byIds = await postBulkArchive(
      jsonRequest('/api/v1/dead-letters/bulk/archive', w.tokens.personal.support, { selection: { ids: [orders[1]!.id, payments[0]!.id] }, reason: 'cleanup' }),
      ctx({}),
    );
    expect(await byIds.json()).toMatchObject({ count: 1 });
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(payments[0]!.id) } })).status).toBe('open');
  });

  it('closeDeadLetters counts redriving as open and leaves other statuses alone', async () => {
    const a = BigInt(orders[7]!.id);
    const b = BigInt(orders[9]!.id);
    await db().deadLetter.update({ where: { id: a }, data: { status: 'redriving' } });
    await db().deadLetter.update({ where: { id: b }, data: { status: 'archived' } });
    const cluster = (await db().deadLetter.findUniqueOrThrow({ where: { id: a } })).clusterId!;
    const before = (await db().cluster.findUniqueOrThrow({ where: { id: cluster } })).openCount;
    const moved = await db().$transaction((tx) =>
      closeDeadLetters(tx, [a, b], 'redriven', { from: ['open', 'redriving'], decidedById: null, reason: 'acknowledged' }),
    );
    expect(moved.map((m) => [m.id, m.from])).toEqual([[a, 'redriving']]);
    expect((await db().cluster.findUniqueOrThrow({ where: { id: cluster } })).openCount).toBe(before - 1);
  });

  it('exports a filtered selection as CSV (injection-safe) and NDJSON, audited with its count', async () => {
    await recordDeadLetters(w.sources.orders, [dl(50, { messageId: '=HYPERLINK("http://evil.example")', errorMessage: '@SUM(A1:A9)' })]);
    const csv = await getExport(getRequest('/api/v1/dead-letters/export?format=csv&source=orders&errorType=UnknownField', w.tokens.personal.support), ctx({}));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="dead-letters-.*\.csv"$/);
    const text = await csv.text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1 + 14);
    expect(lines[0]).toMatch(/^"id","source","message_id"/);
    expect(text).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(text).toContain(`"'@SUM(A1:A9)"`);
    expect(text).not.toMatch(/(^|,)"?[=@+-]HYPERLINK/m);

    const nd = await getExport(getRequest('/api/v1/dead-letters/export?format=ndjson&payload=true&source=orders', w.tokens.personal.support), ctx({}));
    const records = (await nd.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { messageId: string; payload: string; sha256: string });
    expect(records).toHaveLength(26);
    for (const r of records) expect(sha(Buffer.from(r.payload, 'base64'))).toBe(r.sha256);
    const events = await db().auditEvent.findMany({ where: { action: 'deadletter.export' }, orderBy: { id: 'asc' } });
    expect(events.map((e) => e.count)).toEqual([14, 26]);
    expect(events[0]!.selection).toMatchObject({ filter: { source: ['orders'], errorType: 'UnknownField' }, format: 'csv' });
  });

  it('masks sensitive payloads for roles without reveal, and a reveal needs a reason and is audited', async () => {
    await db().source.update({ where: { id: w.sources.payments.id }, data: { sensitivePaths: ['$.card.number'] } });
    const card = bytes('{"amount":12,"card":{"number":"4111111111111111","holder":"Ann"}}');
    const [rec] = await recordDeadLetters(w.sources.payments, [dl(200, { payload: card, messageId: 'pay-1' })]);
    const id = rec!.id;
    const listed = (await list('auditor', 'source=payments&messageId=pay-1')).body.deadLetters[0]!;
    expect(listed).toMatchObject({ masked: true, preview: null });
    // Payload text of a masked source is no search oracle, for any role without a search reveal
    // (search-masked.test.ts).
    await drainBacklog();
    expect((await list('auditor', 'q=4111111111111111')).body.deadLetters).toEqual([]);
    expect((await list('admin', 'q=4111111111111111')).body.deadLetters).toEqual([]);

    const download = (who: keyof World['tokens']['personal'], query = '') =>
      getPayload(getRequest(`/api/v1/dead-letters/${id}/payload${query}`, w.tokens.personal[who]), ctx({ id }));
    expect((await download('auditor')).status).toBe(403);
    expect((await download('financeSupport')).status).toBe(422);
    const first = await postReveal(
      jsonRequest(`/api/v1/dead-letters/${id}/reveal`, w.tokens.personal.financeSupport, { reason: 'customer dispute #1234' }),
      ctx({ id }),
    );
    const revealed = await download('financeSupport', `?reveal=${((await first.json()) as { revealId: string }).revealId}`);
    expect(revealed.status).toBe(200);
    expect(sha(new Uint8Array(await revealed.arrayBuffer()))).toBe(sha(card));
    const reveal = await db().auditEvent.findFirstOrThrow({ where: { action: 'payload.reveal' } });
    expect(reveal).toMatchObject({ actorEmail: 'finance-support@example.com', targetId: id, reason: 'customer dispute #1234' });

    const viaApi = await postReveal(jsonRequest(`/api/v1/dead-letters/${id}/reveal`, w.tokens.personal.financeSupport, { reason: 'second look' }), ctx({ id }));
    expect(viaApi.status).toBe(201);
    const { revealId } = (await viaApi.json()) as { revealId: string };
    expect((await download('financeSupport', `?reveal=${revealId}`)).status).toBe(200);
    expect((await download('admin', `?reveal=${revealId}`)).status).toBe(422); // someone else's reveal
    expect((await postReveal(jsonRequest(`/api/v1/dead-letters/${id}/reveal`, w.tokens.personal.auditor, { reason: 'curious' }), ctx({ id }))).status).toBe(
      403,
    );

    const exported = await getExport(
      getRequest('/api/v1/dead-letters/export?format=ndjson&payload=true&source=payments&messageId=pay-1', w.tokens.personal.auditor),
      ctx({}),
    );
    const rec2 = JSON.parse((await exported.text()).trim()) as { payload: string; payloadMasked: boolean };
    expect(rec2.payloadMasked).toBe(true);
    const maskedJson = Buffer.from(rec2.payload, 'base64').toString();
    expect(maskedJson).not.toContain('4111111111111111');
    expect(maskedJson).toContain('Ann');
  });

  it('serves an OpenAPI document covering ingest, reads and decisions', async () => {
    const doc = (await getOpenApi().json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths['/api/v1/sources/{source}/dead-letters']!).sort()).toEqual(['get', 'post']);
    for (const p of [
      '/api/v1/sources/{source}/dead-letters/raw',
      '/api/v1/dead-letters',
      '/api/v1/dead-letters/{id}',
      '/api/v1/dead-letters/{id}/payload',
      '/api/v1/dead-letters/{id}/archive',
      '/api/v1/dead-letters/{id}/discard',
      '/api/v1/dead-letters/bulk/archive',
      '/api/v1/dead-letters/export',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
  });
});
