// Saved views through the API: shared with the team and opened by a teammate, another
// team's view a 404, filters held to the page's own schema (422, nothing written), the auditor's
// limits, owner-only changes, each change audited. And the download of an edited version, with the
// original's reveal rules. (The role matrix of every endpoint and action is in test/security.)
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { SYSTEM } from '@/lib/auth';
import { db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { revealPayload } from '@/lib/deadletters/reveal-payload';
import { editDeadLetter, listDeadLetterVersions } from '@/lib/redrive/edit';
import { createSource } from '@/lib/sources/create-source';
import * as viewsRoute from '@/app/api/v1/views/route';
import * as viewRoute from '@/app/api/v1/views/[id]/route';
import * as versionRoute from '@/app/api/v1/dead-letters/[id]/versions/[version]/payload/route';
import { principal, seedFixtures, unique, type Fixtures } from '../security/fixtures';

const fx = {} as Fixtures;
const SUPPORT = 'support@triage.local';
const LEAD = 'lead@triage.local';
const AUDITOR = 'auditor@triage.local';
const ADMIN = 'admin@triage.local';
const FINANCE = 'finance-support@triage.local';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function request(email: string, method: string, path: string, body?: unknown): Request {
  return new Request(`http://127.0.0.1:3000${path}`, {
    method,
    headers: { authorization: `Bearer ${fx.users[email]!.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function answer(res: Response) {
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
}

const none = { params: Promise.resolve({}) };
const save = async (email: string, body: unknown) => answer(await viewsRoute.POST(request(email, 'POST', '/api/v1/views', body), none));
const list = async (email: string, page?: string) => answer(await viewsRoute.GET(request(email, 'GET', `/api/v1/views${page ? `?page=${page}` : ''}`), none));
const one = (id: string) => ({ params: Promise.resolve({ id }) });
const get = async (email: string, id: string) => answer(await viewRoute.GET(request(email, 'GET', `/api/v1/views/${id}`), one(id)));
const patch = async (email: string, id: string, body: unknown) => answer(await viewRoute.PATCH(request(email, 'PATCH', `/api/v1/views/${id}`, body), one(id)));
const remove = async (email: string, id: string) => answer(await viewRoute.DELETE(request(email, 'DELETE', `/api/v1/views/${id}`), one(id)));
const events = (targetId: string) => db().auditEvent.findMany({ where: { targetType: 'saved_view', targetId }, orderBy: { id: 'asc' } });
const counts = async () => ({ views: await db().savedView.count(), audit: await db().auditEvent.count() });

describe('saved views', () => {
  freshDatabase({ per: 'file', seed: async () => Object.assign(fx, await seedFixtures()) });

  it("a support engineer's inbox view shared with the team is seen and opened by the team's lead, not by an auditor or another team", async () => {
    const name = unique('on hold of orders');
    const created = await save(SUPPORT, { page: 'inbox', name, filters: '?owner=on_hold&source=orders', shared: true });
    expect(created.status).toBe(201);
    // Normalized as the inbox writes its own query string.
    expect(created.body.view).toMatchObject({
      page: 'inbox',
      name,
      filters: 'source=orders&owner=on_hold',
      href: '/inbox?source=orders&owner=on_hold',
      shared: true,
      mine: true,
    });
    const id = created.body.view.id as string;

    const leads = await list(LEAD);
    expect(leads.status).toBe(200);
    expect(leads.body.views.find((v: Json) => v.id === id)).toMatchObject({ name, owner: SUPPORT, mine: false, href: '/inbox?source=orders&owner=on_hold' });
    expect((await get(LEAD, id)).status).toBe(200);

    for (const outsider of [AUDITOR, FINANCE, ADMIN]) {
      expect(
        (await list(outsider)).body.views.some((v: Json) => v.id === id),
        outsider,
      ).toBe(false);
      expect((await get(outsider, id)).status, outsider).toBe(404);
      expect((await patch(outsider, id, { name: 'mine now' })).status, outsider).toBe(404);
      expect((await remove(outsider, id)).status, outsider).toBe(404);
    }
    expect((await get(SUPPORT, 'not-a-uuid')).status).toBe(404);

    const [event] = await events(id);
    expect(event).toMatchObject({ action: 'view.create', actorEmail: SUPPORT, teamId: fx.teams.commerce });
    expect(event!.after).toMatchObject({ page: 'inbox', name, filters: 'source=orders&owner=on_hold', shared: true });
  });

  it('a private view is its owner’s alone', async () => {
    const { body } = await save(SUPPORT, { page: 'dead_letters', name: unique('mine'), filters: { status: 'open', source: ['orders', 'notifications'] } });
    expect(body.view).toMatchObject({ filters: 'source=orders%2Cnotifications&status=open', shared: false });
    expect((await get(LEAD, body.view.id)).status).toBe(404);
    expect((await list(LEAD)).body.views.some((v: Json) => v.id === body.view.id)).toBe(false);
  });

  it('refuses filters the page does not know or cannot read (422 naming the field), writing nothing', async () => {
    const before = await counts();
    const cases: [unknown, string][] = [
      [{ page: 'inbox', name: unique('v'), filters: 'owner=mine&bogus=1' }, 'filters.bogus'],
      // The inbox shows open clusters only: its state is not a filter of it.
      [{ page: 'inbox', name: unique('v'), filters: 'state=all' }, 'filters.state'],
      [{ page: 'inbox', name: unique('v'), filters: 'owner=everyone' }, 'filters.owner'],
      [{ page: 'dead_letters', name: unique('v'), filters: 'status=lost' }, 'filters.status'],
      [{ page: 'dead_letters', name: unique('v'), filters: 'q=ab' }, 'filters.q'],
      // A paging cursor is where one was, not a filter.
      [{ page: 'dead_letters', name: unique('v'), filters: 'cursor=abc' }, 'filters.cursor'],
      [{ page: 'audit', name: unique('v'), filters: 'from=yesterday' }, 'filters.from'],
    ];
    for (const [body, field] of cases) {
      const r = await save(LEAD, body);
      expect(r.status, field).toBe(422);
      expect(r.body.error.details.field, field).toBe(field);
    }
    const r = await save(LEAD, { page: 'clusters', name: unique('v') });
    expect(r.status).toBe(422);
    const { body } = await save(LEAD, { page: 'inbox', name: unique('v') });
    expect((await patch(LEAD, body.view.id, { filters: 'owner=mine&sort=oldest' })).status).toBe(422);
    expect(await counts()).toEqual({ views: before.views + 1, audit: before.audit + 1 });
  });

  it('an auditor saves private views of the audit trail but shares into no team; support saves no audit view', async () => {
    const audit = await save(AUDITOR, { page: 'audit', name: unique('redrives of a week'), filters: 'action=redrive.&from=2026-11-24' });
    expect(audit.status).toBe(201);
    expect(audit.body.view.filters).toBe('action=redrive.&from=2026-11-24T00%3A00%3A00.000Z');
    const before = await counts();
    const shared = await save(AUDITOR, { page: 'audit', name: unique('shared'), shared: true });
    expect(shared.status).toBe(403);
    expect(shared.body.error.message).toMatch(/no team/);
    expect((await patch(AUDITOR, audit.body.view.id, { shared: true })).status).toBe(403);
    // An audit view is saved by those who may open the trail.
    expect((await save(SUPPORT, { page: 'audit', name: unique('audit') })).status).toBe(403);
    // A user saves as themselves: owner is the CLI's.
    expect((await save(SUPPORT, { page: 'inbox', name: unique('theirs'), owner: LEAD })).status).toBe(403);
    expect(await counts()).toEqual(before);
    // A lead's shared audit view is not offered to support, who cannot open the trail.
    const leadAudit = await save(LEAD, { page: 'audit', name: unique('team trail'), shared: true });
    expect(leadAudit.status).toBe(201);
    expect((await list(SUPPORT)).body.views.some((v: Json) => v.id === leadAudit.body.view.id)).toBe(false);
    expect((await get(SUPPORT, leadAudit.body.view.id)).status).toBe(404);
  });

  it('only the owner renames, re-filters, unshares or deletes; each change is one audit event', async () => {
    const name = unique('team inbox');
    const { body } = await save(SUPPORT, { page: 'inbox', name, filters: 'owner=unassigned', shared: true });
    const id = body.view.id as string;
    expect((await patch(LEAD, id, { name: 'taken over' })).status).toBe(403);
    expect((await remove(LEAD, id)).status).toBe(403);

    const renamed = await patch(SUPPORT, id, { name: `${name} (renamed)`, filters: 'owner=mine' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.view).toMatchObject({ name: `${name} (renamed)`, filters: 'owner=mine', shared: true });
    expect((await patch(SUPPORT, id, { shared: false })).status).toBe(200);
    expect((await get(LEAD, id)).status).toBe(404);

    // A name is unique per user and page.
    expect((await save(SUPPORT, { page: 'inbox', name: `${name} (renamed)` })).status).toBe(409);
    expect((await remove(SUPPORT, id)).status).toBe(204);
    expect((await get(SUPPORT, id)).status).toBe(404);

    const trail = await events(id);
    expect(trail.map((e) => e.action)).toEqual(['view.create', 'view.update', 'view.update', 'view.delete']);
    expect(trail[1]).toMatchObject({ before: { name, filters: 'owner=unassigned' }, after: { name: `${name} (renamed)`, filters: 'owner=mine' } });
    expect(trail[2]).toMatchObject({ before: { shared: true }, after: { shared: false } });
    expect(trail[3]!.before).toMatchObject({ name: `${name} (renamed)`, page: 'inbox' });
  });

  it('refuses a body that is not JSON (415) or too large (413)', async () => {
    const wrongType = new Request('http://127.0.0.1:3000/api/v1/views', {
      method: 'POST',
      headers: { authorization: `Bearer ${fx.users[SUPPORT]!.token}`, 'content-type': 'text/plain' },
      body: 'x',
    });
    expect((await viewsRoute.POST(wrongType, none)).status).toBe(415);
    expect((await save(SUPPORT, { page: 'inbox', name: 'big', filters: 'q='.padEnd(20_000, 'x') })).status).toBe(413);
  });
});

describe('downloading an edited version', () => {
  const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

  async function edited(payload: string, copy: string): Promise<string> {
    const source = await createSource(SYSTEM, { name: unique('versions'), team: 'commerce', kind: 'builtin' });
    const [r] = await recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86400 }, [
      {
        messageId: unique('msg'),
        payload: Buffer.from(payload),
        contentType: 'application/json',
        reason: 'Rejected',
        errorType: 'ValidationError',
        errorMessage: 'field "gift" is unknown',
      },
    ]);
    await editDeadLetter({ ...SYSTEM, label: 'test' }, r!.id, { payload: copy, reason: 'fix the order' });
    return r!.id;
  }

  const download = async (email: string, id: string, version: string, reveal?: string) => {
    const res = await versionRoute.GET(request(email, 'GET', `/api/v1/dead-letters/${id}/versions/${version}/payload${reveal ? `?reveal=${reveal}` : ''}`), {
      params: Promise.resolve({ id, version }),
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it('serves the exact bytes of a version with its own SHA-256; another team and unknown versions are 404', async () => {
    const copy = '{"order":2,"note":"fixed by hand"}';
    const id = await edited('{"order":1,"gift":true}', copy);
    const [v] = await listDeadLetterVersions(principal(fx.users[SUPPORT]!), id);
    for (const email of [SUPPORT, AUDITOR]) {
      const { res, bytes } = await download(email, id, '1');
      expect(res.status, email).toBe(200);
      expect(bytes.toString()).toBe(copy);
      expect(res.headers.get('x-payload-sha256')).toBe(sha(copy));
      expect(res.headers.get('x-payload-sha256')).toBe(v!.sha256);
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="dead-letter-${id}-v1.bin"`);
      expect(res.headers.get('content-type')).toBe('application/json');
    }
    expect((await download(FINANCE, id, '1')).res.status).toBe(404);
    expect((await download(SUPPORT, id, '2')).res.status).toBe(404);
    expect((await download(SUPPORT, id, 'latest')).res.status).toBe(404);
  });

  it('a masked original or a version holding sensitive values needs a reveal, as the original does', async () => {
    // The copy keeps the e-mail: its own bytes are sensitive.
    const keeps = await edited('{"order":1,"email":"ann@example.com"}', '{"order":2,"email":"ann@example.com"}');
    // The copy drops it, but the original it was made from is masked: still a reveal.
    const drops = await edited('{"order":1,"email":"ann@example.com"}', '{"order":2}');
    for (const id of [keeps, drops]) {
      const auditor = await download(AUDITOR, id, '1');
      expect(auditor.res.status).toBe(403);
      const unrevealed = await download(SUPPORT, id, '1');
      expect(unrevealed.res.status).toBe(422);
      expect(JSON.parse(unrevealed.bytes.toString()).error.details.field).toBe('reveal');
      // Someone else's reveal is not the caller's.
      const leads = await revealPayload(principal(fx.users[LEAD]!), id, 'customer dispute', 'download');
      expect((await download(SUPPORT, id, '1', leads.eventId)).res.status).toBe(422);
      const { eventId } = await revealPayload(principal(fx.users[SUPPORT]!), id, 'customer dispute', 'download');
      const revealed = await download(SUPPORT, id, '1', eventId);
      expect(revealed.res.status).toBe(200);
      expect(revealed.res.headers.get('x-payload-sha256')).toBe(sha(revealed.bytes));
    }
    expect(
      (await download(SUPPORT, drops, '1', (await revealPayload(principal(fx.users[SUPPORT]!), drops, 'again', 'download')).eventId)).bytes.toString(),
    ).toBe('{"order":2}');
  });
});
