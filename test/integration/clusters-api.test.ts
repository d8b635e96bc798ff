// The clusters JSON API as a client sees it: personal API tokens, JSON in and out, the standard error
// shape. (Which role may call what, and cross-team 404s, are in the security suite's matrix.)
import { describe, expect, it } from 'vitest';
import { db } from '@/lib/db';
import * as list from '@/app/api/v1/clusters/route';
import * as one from '@/app/api/v1/clusters/[id]/route';
import * as archive from '@/app/api/v1/clusters/[id]/archive/route';
import * as merge from '@/app/api/v1/clusters/[id]/merge/route';
import { seededFixtures } from '../security/lifecycle';
import { poisonCluster } from './cluster-support';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const fx = seededFixtures();

async function call(handler: unknown, as: string, path: string, opts: { params?: Record<string, string>; body?: unknown; type?: string } = {}) {
  const init: RequestInit = { method: opts.body === undefined ? 'GET' : 'POST', headers: { authorization: `Bearer ${fx.users[as]!.token}` } };
  if (opts.body !== undefined) {
    init.body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    (init.headers as Record<string, string>)['content-type'] = opts.type ?? 'application/json';
  }
  const res = await (handler as Handler)(new Request(`http://127.0.0.1:3000${path}`, init), { params: Promise.resolve(opts.params ?? {}) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const poison = (source: 'orders' | 'payments', message: string, n = 1) => poisonCluster(fx, source, message, n);

describe('clusters API', () => {
  it('lists, pages and reads clusters as JSON', async () => {
    const a = await poison('orders', 'quota exceeded', 3);
    const b = await poison('orders', 'inbox full', 2);
    await poison('payments', 'card declined');

    const first = await call(list.GET, 'support@triage.local', '/api/v1/clusters?limit=1');
    expect(first.status).toBe(200);
    const page = first.body as { clusters: { id: string; count: number; sparkline: number[]; sources: { name: string }[] }[]; nextCursor: string };
    expect(page.clusters.map((c) => c.id)).toEqual([b]);
    expect(page.clusters[0]).toMatchObject({ count: 2, openCount: 2, template: 'inbox full', errorType: 'ApiError', sources: [{ name: 'orders' }] });
    expect(page.clusters[0]!.sparkline).toHaveLength(24);
    const next = await call(list.GET, 'support@triage.local', `/api/v1/clusters?limit=1&cursor=${page.nextCursor}`);
    expect((next.body as { clusters: { id: string }[] }).clusters.map((c) => c.id)).toEqual([a]);

    const detail = await call(one.GET, 'support@triage.local', `/api/v1/clusters/${a}`, { params: { id: a } });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: a, count: 3, openCount: 3, template: 'quota exceeded', sources: [{ name: 'orders', count: 3, openCount: 3 }] });
    expect((detail.body.trend as { counts: number[] }).counts).toHaveLength(168);
  });

  it('answers bad input with the standard error shape', async () => {
    const c = await poison('orders', 'disk full');
    const bad = await call(list.GET, 'support@triage.local', '/api/v1/clusters?cursor=nope');
    expect(bad).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } });
    expect((await call(list.GET, 'support@triage.local', '/api/v1/clusters?state=closed')).status).toBe(422);
    expect((await call(one.GET, 'support@triage.local', '/api/v1/clusters/x', { params: { id: 'x' } })).status).toBe(404);

    const noReason = await call(archive.POST, 'support@triage.local', `/api/v1/clusters/${c}/archive`, { params: { id: c }, body: {} });
    expect(noReason).toMatchObject({ status: 422, body: { error: { code: 'unprocessable' } } });
    const notJson = await call(archive.POST, 'support@triage.local', `/api/v1/clusters/${c}/archive`, {
      params: { id: c },
      body: 'reason=x',
      type: 'text/plain',
    });
    expect(notJson.status).toBe(415);
    const badInto = await call(merge.POST, 'lead@triage.local', `/api/v1/clusters/${c}/merge`, { params: { id: c }, body: { into: 'elsewhere', reason: 'x' } });
    expect(badInto.status).toBe(422);
  });

  it('archives and merges through the API, each audited once', async () => {
    const c = await poison('orders', 'schema mismatch', 4);
    const archived = await call(archive.POST, 'support@triage.local', `/api/v1/clusters/${c}/archive`, {
      params: { id: c },
      body: { reason: 'invalid for good' },
    });
    expect(archived).toEqual({ status: 200, body: { clusterId: c, count: 4 } });

    const from = await poison('orders', 'socket hang up', 2);
    const into = await poison('orders', 'connection reset', 1);
    const merged = await call(merge.POST, 'lead@triage.local', `/api/v1/clusters/${from}/merge`, { params: { id: from }, body: { into, reason: 'one cause' } });
    expect(merged).toEqual({ status: 200, body: { clusterId: from, into, count: 2 } });
    const alias = await call(one.GET, 'lead@triage.local', `/api/v1/clusters/${from}`, { params: { id: from } });
    expect(alias.body).toMatchObject({ id: into, aliasOf: from, count: 3 });
    expect(await db().auditEvent.count({ where: { action: { in: ['cluster.archive', 'cluster.merge'] } } })).toBe(2);
  });
});
