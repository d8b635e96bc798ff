// Role × route handler, generated from the one permission map the app uses: allowed exactly as
// PERMISSIONS says (every allowed mutation leaves exactly one audit event), 403 otherwise (logged,
// nothing written); another team's object → 404; demotion and disabling apply on the next request.
// Calls go straight to the route handlers with personal API tokens (no cookie, so no Origin check);
// the cookie and cross-site cases run in the browser suite (test/e2e/security.spec.ts). The routes
// are the API's registry (lib/openapi/routes.ts), so a new route is walked here without an edit.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PERMISSIONS, ROLES, SYSTEM, scopeFor, type Permission, type Role } from '@/lib/auth';
import { createIngestToken, createPersonalToken } from '@/lib/admin/tokens';
import { createUser, updateUser } from '@/lib/admin/users';
import { db } from '@/lib/db';
import { log } from '@/lib/log';
import { registryEntries } from '@/lib/openapi/routes';
import { ACTIONS, CALLS, EXEMPT_ACTIONS, EXEMPT_ROUTES, actionKey, expectedAudits, isMutating, routeKey, urlPath, type CallSpec } from './endpoints';
import { EXPECTED_PERMISSIONS } from './expected-permissions';
import { ROUTES, type Route } from './registry';
import { ACTING, unique, type FixtureUser } from './fixtures';
import { inlineServerActions, routeHandlers, serverActions } from './inventory';
import { emptyWebhookAndRedriveQueues, seededFixtures } from './lifecycle';

async function invoke(e: Route, spec: CallSpec, headers: Record<string, string>): Promise<Response> {
  const { handler } = e;
  const body = spec.body === undefined || !isMutating(e) ? undefined : JSON.stringify(spec.body);
  const req = new Request(`http://127.0.0.1:3000${urlPath(e, spec)}`, {
    method: e.method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body,
  });
  const res = await handler(req, { params: Promise.resolve(spec.params ?? {}) });
  await res.clone().arrayBuffer(); // a streamed body (an export) runs to its end; the caller may still read it
  return res;
}

const bearer = (u: FixtureUser) => ({ authorization: `Bearer ${u.token}` });
// Every event, whoever wrote it: nothing else runs beside these calls (the browser suite counts per user).
const auditCount = () => db().auditEvent.count();

/** Allowed exactly as the permission map says ('all' entries: only roles with the 'all' scope). */
function allowed(role: Role, e: { permission: Permission | 'authenticated'; scope?: 'all' }): boolean {
  if (e.permission === 'authenticated') return true;
  const scope = scopeFor(role, e.permission);
  return scope !== undefined && (e.scope !== 'all' || scope === 'all');
}

/** What a refused cross-team call must leave as it was: dead letters by status, redrives, webhooks and deliveries. */
const state = async () => ({
  deadLetters: await db().deadLetter.groupBy({ by: ['status'], _count: true, orderBy: { status: 'asc' } }),
  redrives: await db().redriveTask.count(),
  deliveries: await db().webhookDelivery.count(),
  webhooks: await db().webhook.count(),
});

const fx = seededFixtures(emptyWebhookAndRedriveQueues);
afterEach(() => {
  vi.restoreAllMocks();
});

describe('the registry covers every route handler and server action', () => {
  it('the registry holds every exported route handler made by api(); the rest are exempt', async () => {
    const handlers = await routeHandlers();
    const registry = new Set(registryEntries().map(routeKey));
    const missing = handlers.filter((h) => !registry.has(routeKey(h)) && !(routeKey(h) in EXEMPT_ROUTES));
    expect(missing, 'add their route files to ROUTE_FILES in lib/openapi/routes.ts (or, not made by api(), to EXEMPT_ROUTES)').toEqual([]);
    const existing = new Set(handlers.map(routeKey));
    expect(
      [...registry].filter((k) => !existing.has(k)),
      'in the registry but not under app/',
    ).toEqual([]);
  });

  it('finds route files of every extension, and method exports of every form', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'triage-inventory-'));
    const put = (rel: string, src: string) => {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), src);
    };
    try {
      put('api/typed/route.ts', 'type H = () => Response;\nexport const GET: H = () => new Response();\n');
      put('api/plain/route.js', 'export async function POST() { return new Response(); }\n');
      put('api/star/impl.mjs', 'export const DELETE = () => new Response();\nexport const PATCH = DELETE;\n');
      put('api/star/route.mjs', "export * from './impl.mjs';\n");
      expect((await routeHandlers(dir)).map(routeKey).sort()).toEqual(['DELETE /api/star', 'GET /api/typed', 'PATCH /api/star', 'POST /api/plain']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('has CALLS entries only for routes of the registry a user calls', () => {
    const keys = new Set(ROUTES.map(routeKey));
    expect(
      [...CALLS.keys()].filter((k) => !keys.has(k)),
      'CALLS entries in test/security/endpoints.ts for no such route',
    ).toEqual([]);
  });

  it('has a crossTeam check, or says why none, for every route a team-scoped role may call', () => {
    const teamScoped = (e: Route) =>
      e.permission !== 'authenticated' && e.scope !== 'all' && ROLES.some((r) => scopeFor(r, e.permission as Permission) === 'team');
    expect(
      ROUTES.filter((e) => teamScoped(e) && e.crossTeam === undefined).map(routeKey),
      "add crossTeam (another team's object → 404, state unchanged), or crossTeam: { none: '<why>' }, to CALLS in test/security/endpoints.ts",
    ).toEqual([]);
  });

  it('needs the permission the expected-permission table says for every route', () => {
    const registry = Object.fromEntries(registryEntries().map((e) => [routeKey(e), e.permission]));
    expect(registry, 'a route changed its permission, or is new: edit test/security/expected-permissions.ts').toEqual(EXPECTED_PERMISSIONS);
  });

  it('has an entry or an exemption for every server action, and no inline ones', () => {
    const known = new Set([...ACTIONS.map(actionKey), ...Object.keys(EXEMPT_ACTIONS)]);
    const missing = serverActions().filter((a) => !known.has(actionKey(a)));
    expect(missing, 'add these to ACTIONS in test/security/endpoints.ts').toEqual([]);
    expect(inlineServerActions(), "move inline 'use server' functions to an actions file").toEqual([]);
  });

  it('names only permissions of the map and entries that exist', () => {
    for (const e of [...ROUTES, ...ACTIONS]) expect(['authenticated', ...Object.keys(PERMISSIONS)]).toContain(e.permission);
    const actions = new Set(serverActions().map(actionKey));
    expect(ACTIONS.map(actionKey).filter((k) => !actions.has(k))).toEqual([]);
  });
});

describe.each(ROUTES.map((e) => [routeKey(e), e] as const))('%s', (_key, e) => {
  it.each(ROLES.map((r) => [r, allowed(r, e) ? 'allowed' : 'refused with 403'] as const))('%s: %s', async (role) => {
    const as = fx.users[ACTING[role]]!;
    const spec = await e.call(fx, as);
    const warn = vi.spyOn(log, 'warn');
    const before = await auditCount();
    const res = await invoke(e, spec, bearer(as));
    const written = (await auditCount()) - before;
    if (allowed(role, e)) {
      // The bare call may answer 2xx by luck (a list of nothing): an allowed role needs a described call.
      expect(e.described, `${role} ${routeKey(e)}: say how to call it validly in CALLS, test/security/endpoints.ts`).toBe(true);
      expect(res.status, `${role} ${routeKey(e)}`).toBeGreaterThanOrEqual(200);
      expect(res.status, `${role} ${routeKey(e)}`).toBeLessThan(300);
      expect(written, 'audit events written').toBe(expectedAudits(e));
    } else {
      expect(res.status, `${role} ${routeKey(e)}`).toBe(403);
      expect(written, 'a refused call writes nothing').toBe(0);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ userId: as.id, role }), 'permission denied');
    }
  });

  const cross = e.crossTeam;
  if (typeof cross === 'function') {
    const teamScoped = ROLES.filter((r) => e.permission !== 'authenticated' && scopeFor(r, e.permission) === 'team');
    it.each(teamScoped)("%s: another team's object answers 404 (or an empty list), nothing changed", async (role) => {
      const as = fx.users[ACTING[role]]!;
      const spec = await cross(fx, as);
      const before = await auditCount();
      const rows = await state();
      const res = await invoke(e, spec, bearer(as));
      if (spec.expect === 'empty') {
        expect(res.status).toBe(200);
        // Every list in the answer empty, and a count (a bulk decision's, a preview's) zero.
        const body = (await res.json()) as Record<string, unknown>;
        const lists = Object.values(body).filter(Array.isArray);
        if (typeof body.count === 'number') expect(body.count, 'count').toBe(0);
        else expect(lists.length, 'a list in the answer').toBeGreaterThan(0);
        for (const l of lists) expect(l).toEqual([]);
      } else expect(res.status).toBe(spec.expect ?? 404);
      expect(await auditCount(), 'audit events written').toBe(before + (spec.audits ?? 0));
      expect(await state(), 'no dead letter, redrive, webhook or delivery changed').toEqual(rows);
    });
  }
});

describe('requests that must not get through', () => {
  const mutations = ROUTES.filter((e) => e.method !== 'GET');

  // Without any credential the same header meets 401: the browser suite checks that with a real server.
  it.each(mutations.map((e) => [routeKey(e), e] as const))('%s: the x-middleware-subrequest header bypasses nothing', async (_k, e) => {
    const support = fx.users[ACTING.support]!;
    const spec = await e.call(fx, support);
    const bypass = { 'x-middleware-subrequest': 'middleware:middleware:middleware:middleware:middleware' };
    const res = await invoke(e, spec, { ...bearer(support), ...bypass });
    if (allowed('support', e)) expect(res.status).toBeLessThan(300);
    else expect(res.status).toBe(403);
  });

  it.each(mutations.map((e) => [routeKey(e), e] as const))('%s: a bearer token works from any Origin (no cookie, no CSRF)', async (_k, e) => {
    const admin = fx.users[ACTING.admin]!;
    for (const origin of ['http://evil.example', 'null']) {
      const res = await invoke(e, await e.call(fx, admin), { ...bearer(admin), origin });
      expect(res.status, `Origin ${origin}`).toBeLessThan(300);
    }
  });

  it('refuses an unknown, a revoked and an ingest token', async () => {
    const e = ROUTES.find((r) => routeKey(r) === 'GET /api/v1/users')!;
    expect((await invoke(e, {}, { authorization: 'Bearer tri_p_not-a-token' })).status).toBe(401);
    const t = await createPersonalToken(SYSTEM, ACTING.admin);
    await db().apiToken.update({ where: { id: t.id }, data: { revokedAt: new Date() } });
    expect((await invoke(e, {}, { authorization: `Bearer ${t.token}` })).status).toBe(401);
    const ingest = await createIngestToken(SYSTEM, 'orders');
    expect((await invoke(e, {}, { authorization: `Bearer ${ingest.token}` })).status).toBe(401);
  });
});

describe('role changes apply on the next request', () => {
  /** A new admin and the status GET /api/v1/users answers their personal token. */
  const adminWithToken = async (name: string) => {
    const user = await createUser(SYSTEM, { email: `${unique(name)}@triage.local`, role: 'admin' });
    const { token } = await createPersonalToken(SYSTEM, user.email);
    const listUsers = ROUTES.find((r) => routeKey(r) === 'GET /api/v1/users')!;
    return { user, listUsersStatus: async () => (await invoke(listUsers, {}, { authorization: `Bearer ${token}` })).status };
  };

  it('a demoted admin is refused at once, a promoted support allowed at once', async () => {
    const { user, listUsersStatus } = await adminWithToken('demoted');
    expect(await listUsersStatus()).toBe(200);
    await updateUser(SYSTEM, user.id, { role: 'support', team: 'commerce' });
    expect(await listUsersStatus()).toBe(403);
    await updateUser(SYSTEM, user.id, { role: 'admin' });
    expect(await listUsersStatus()).toBe(200);
  });

  it("a disabled user's token stops working", async () => {
    const { user, listUsersStatus } = await adminWithToken('disabled');
    expect(await listUsersStatus()).toBe(200);
    await updateUser(SYSTEM, user.id, { disabled: true });
    expect(await listUsersStatus()).toBe(401);
  });
});
