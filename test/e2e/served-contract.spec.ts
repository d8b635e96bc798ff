// The HTTP contract as the built app serves it (`npm start`, scripts/serve.mjs), over real HTTP: the
// headers of every download and export, and the status codes each role gets. Tests that call route
// handlers in-process cannot see what the framework, next.config.ts or the proxy change on the way
// out; these see what a browser, curl or a client library sees.
import { createHash, randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext, type APIResponse, type PlaywrightWorkerArgs } from '@playwright/test';
import { ROLES, scopeFor, type Permission, type Role } from '@/lib/auth';
import { closeDb } from '@/lib/db';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { ACTING, loadFixtures, newSource, type FixtureSource, type Fixtures } from '../security/fixtures';
import { as, stateFile } from './helpers';

const PORT = process.env.E2E_PORT ?? '3100';
const baseURL = `http://127.0.0.1:${PORT}`;
const RUN = randomBytes(4).toString('hex');
// One error type for every dead letter seeded here, so an export filtered by it holds exactly these.
const ERROR_TYPE = `ServedContract${RUN}Error`;
const MiB = 1024 * 1024;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A JSON document of exactly `size` bytes (compressible, as most payloads are). */
function jsonOfSize(size: number, extra: Record<string, unknown> = {}): Buffer {
  const head = JSON.stringify({ ...extra, run: RUN, pad: '' });
  return Buffer.from(`${head.slice(0, -2) + 'x'.repeat(size - head.length)}"}`);
}

interface Seeded {
  id: string;
  bytes: Buffer;
  contentType: string;
}

const payloads: Record<'empty' | 'mib' | 'fiveMB' | 'masked' | 'sensitive' | 'finance', Seeded> = {} as never;
let fx: Fixtures;
// Sources of their own, one per team: the demo's sources' counts and alarms are other specs' to check.
let commerce: FixtureSource;

async function seedOne(source: FixtureSource, bytes: Buffer, contentType: string, extra: Partial<NewDeadLetter> = {}): Promise<Seeded> {
  const [r] = await recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86400 }, [
    {
      messageId: `contract-${RUN}-${randomBytes(4).toString('hex')}`,
      payload: bytes,
      contentType,
      reason: 'Rejected',
      errorType: ERROR_TYPE,
      errorMessage: 'served contract',
      ...extra,
    },
  ]);
  return { id: r!.id, bytes, contentType };
}

test.beforeAll(async () => {
  fx = await loadFixtures();
  commerce = await newSource(fx.sources.orders);
  payloads.empty = await seedOne(commerce, Buffer.alloc(0), 'application/octet-stream');
  payloads.mib = await seedOne(commerce, jsonOfSize(MiB), 'application/json');
  // Letters only: random hex holds digit runs that pass the card-number check, and the masking verdict
  // scans the whole payload, so it would be masked and this is about plain downloads.
  payloads.fiveMB = await seedOne(commerce, Buffer.from(randomBytes(5_000_000).map((b) => 97 + (b % 26))), 'text/plain; charset=utf-8');
  // An e-mail address: masked for every reader, its exact bytes are a reveal.
  payloads.masked = await seedOne(commerce, jsonOfSize(MiB, { customer: 'alice@example.com' }), 'application/json');
  // Flagged sensitive by the producer: hidden whole until revealed.
  payloads.sensitive = await seedOne(commerce, jsonOfSize(5_000_000), 'application/json', { sensitive: true });
  payloads.finance = await seedOne(await newSource(fx.sources.payments), jsonOfSize(512), 'application/json');
  expect(payloads.fiveMB.bytes.length).toBe(5_000_000);
});
test.afterAll(closeDb);

type Playwright = PlaywrightWorkerArgs['playwright'];

/** A request context signed in as `email` through the setup project's sign-in, or signed out. */
async function client(playwright: Playwright, email?: string): Promise<APIRequestContext> {
  return playwright.request.newContext({ baseURL, storageState: email ? stateFile(email) : { cookies: [], origins: [] } });
}

async function withClient<T>(playwright: Playwright, email: string | undefined, fn: (api: APIRequestContext) => Promise<T>): Promise<T> {
  const api = await client(playwright, email);
  try {
    return await fn(api);
  } finally {
    await api.dispose();
  }
}

const payloadPath = (p: Seeded, query = '') => `/api/v1/dead-letters/${p.id}/payload${query}`;

/** What every download of exact payload bytes must carry (soft: a failure names every header that is wrong). */
async function expectPayloadDownload(res: APIResponse, p: Seeded) {
  const what = `payload ${p.id} (${p.bytes.length} B)`;
  expect(res.status(), what).toBe(200);
  const h = res.headers();
  expect.soft(h['content-length'], `${what}: Content-Length`).toBe(String(p.bytes.length));
  expect.soft(h['transfer-encoding'], `${what}: not chunked`).toBeUndefined();
  expect.soft(h['content-encoding'], `${what}: the exact bytes, not re-encoded`).toBeUndefined();
  expect.soft(h['content-type'], what).toBe(p.contentType);
  expect.soft(h['content-disposition'], what).toBe(`attachment; filename="dead-letter-${p.id}.bin"`);
  expect.soft(h['x-content-type-options'], what).toBe('nosniff');
  // The sandboxing policy of the handler, not the app's page policy (which allows the app's scripts).
  expect.soft(h['content-security-policy'], `${what}: CSP`).toMatch(/(^|;\s*)default-src 'none'(;|$)/);
  expect.soft(h['content-security-policy'], `${what}: CSP`).toMatch(/(^|;\s*)sandbox(;|$)/);
  expect.soft(h['content-security-policy'], `${what}: CSP`).not.toMatch(/script-src|nonce-/);
  expect.soft(h['cache-control'], what).toMatch(/\bprivate\b/);
  expect.soft(h['cache-control'], what).toMatch(/\bno-store\b/);
  expect.soft(h['x-payload-sha256'], what).toBe(sha256(p.bytes));
  const body = await res.body();
  expect(body.length, what).toBe(p.bytes.length);
  expect.soft(sha256(body), what).toBe(sha256(p.bytes));
}

/** What every streamed export must carry: it has no length up front, but it is a file and private. */
function expectExport(res: APIResponse, contentType: RegExp, extension: string) {
  expect(res.status()).toBe(200);
  const h = res.headers();
  expect(h['content-type']).toMatch(contentType);
  expect(h['content-disposition']).toMatch(new RegExp(`^attachment; filename="[\\w.-]+\\.${extension}"$`));
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['cache-control']).toMatch(/\bprivate\b/);
  expect(h['cache-control']).toMatch(/\bno-store\b/);
  // Nothing in an export may run if a browser is made to render it.
  expect(h['content-security-policy']).toMatch(/(^|;\s*)default-src 'none'(;|$)/);
  expect(h['content-security-policy']).toMatch(/(^|;\s*)sandbox(;|$)/);
}

const allowed = (role: Role, permission: Permission, scope?: 'all') => {
  const s = scopeFor(role, permission);
  return s !== undefined && (!scope || s === scope);
};

test.describe('payload downloads', () => {
  test('0 B, 1 MiB and 5 MB arrive with their exact Content-Length and the download headers, for every role that reads them', async ({ playwright }) => {
    for (const role of ROLES) {
      await withClient(playwright, ACTING[role], async (api) => {
        for (const p of [payloads.empty, payloads.mib, payloads.fiveMB]) await expectPayloadDownload(await api.get(payloadPath(p)), p);
      });
    }
  });

  test('HEAD tells the length without the bytes', async ({ playwright }) => {
    await withClient(playwright, ACTING.support, async (api) => {
      const res = await api.head(payloadPath(payloads.fiveMB));
      expect(res.status()).toBe(200);
      expect(res.headers()['content-length']).toBe('5000000');
      expect((await res.body()).length).toBe(0);
    });
  });

  test('a masked payload: a role that may reveal POSTs a reveal with a reason, then downloads with its id; a GET alone 422; a role that may not, 403', async ({
    playwright,
  }) => {
    for (const role of ROLES) {
      await withClient(playwright, ACTING[role], async (api) => {
        for (const p of [payloads.masked, payloads.sensitive]) {
          // A reason on a GET reveals nothing: a reveal is a POST.
          const byGet = await api.get(payloadPath(p, '?reason=served-contract+check'));
          if (allowed(role, 'payload.reveal')) {
            expect(byGet.status(), `${role} by GET`).toBe(422);
            expect(((await byGet.json()) as { error: { code: string } }).error.code).toBe('unprocessable');
            // From the app's own page, as a browser sends it: a cookie POST without its Origin is refused.
            const reveal = await api.post(`/api/v1/dead-letters/${p.id}/reveal`, { headers: { origin: baseURL }, data: { reason: 'served-contract check' } });
            expect(reveal.status()).toBe(201);
            const { revealId } = (await reveal.json()) as { revealId: string };
            await expectPayloadDownload(await api.get(payloadPath(p, `?reveal=${revealId}`)), p);
          } else {
            expect(byGet.status(), `${role} may not reveal`).toBe(403);
            expect(((await byGet.json()) as { error: { code: string } }).error.code).toBe('forbidden');
            expect(byGet.headers()['content-disposition']).toBeUndefined();
          }
        }
      });
    }
  });

  test("another team's dead letter is 404 for a team role, as if it did not exist; signed out is 401", async ({ playwright }) => {
    await withClient(playwright, 'finance-support@triage.local', async (api) => {
      for (const path of [payloadPath(payloads.mib), `/api/v1/dead-letters/${payloads.mib.id}`]) {
        const res = await api.get(path);
        expect(res.status(), path).toBe(404);
        expect(res.headers()['content-disposition']).toBeUndefined();
      }
      await expectPayloadDownload(await api.get(payloadPath(payloads.finance)), payloads.finance);
    });
    for (const email of [ACTING.support, ACTING.lead]) {
      await withClient(playwright, email, async (api) => {
        expect((await api.get(payloadPath(payloads.finance))).status(), email).toBe(404);
        expect((await api.get(`/api/v1/dead-letters/${payloads.finance.id}`)).status(), email).toBe(404);
      });
    }
    await withClient(playwright, undefined, async (api) => {
      const res = await api.get(payloadPath(payloads.mib));
      expect(res.status()).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    });
  });
});

test.describe('exports', () => {
  test('dead-letter exports (CSV, NDJSON, with payloads) stream as private attachments, for every role', async ({ playwright }) => {
    for (const role of ROLES) {
      await withClient(playwright, ACTING[role], async (api) => {
        const csv = await api.get(`/api/v1/dead-letters/export?format=csv&errorType=${ERROR_TYPE}`);
        expectExport(csv, /^text\/csv; charset=utf-8$/, 'csv');
        const lines = (await csv.text()).trim().split('\n');
        // The header and commerce's five (a team role sees its own team's; auditor and admin see finance's too).
        expect(lines.length, role).toBe(1 + (fx.users[ACTING[role]]!.teamId ? 5 : 6));

        // The selection holds masked payloads: a role that may reveal them exports them with a reason,
        // as a POST (a link cannot reveal); the others export them masked.
        const url = `/api/v1/dead-letters/export?format=ndjson&payload=true&errorType=${ERROR_TYPE}&source=${commerce.name}`;
        const ndjson = allowed(role, 'payload.reveal')
          ? await api.post(url, { data: { revealReason: 'served-contract check' }, headers: { origin: baseURL } })
          : await api.get(url);
        expectExport(ndjson, /^application\/x-ndjson\b/, 'ndjson');
        const rows = (await ndjson.text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { id: string });
        expect(rows.map((r) => r.id).sort(), role).toEqual(
          [payloads.empty, payloads.mib, payloads.fiveMB, payloads.masked, payloads.sensitive].map((p) => p.id).sort(),
        );
      });
    }
  });

  test('audit exports (CSV, NDJSON) stream as private attachments for the roles that read the trail; 403 for the others', async ({ playwright }) => {
    for (const role of ROLES) {
      await withClient(playwright, ACTING[role], async (api) => {
        for (const [format, type] of [
          ['csv', /^text\/csv; charset=utf-8$/],
          ['ndjson', /^application\/x-ndjson\b/],
        ] as const) {
          const res = await api.get(`/api/v1/audit/export?format=${format}&action=payload.`);
          if (allowed(role, 'audit.read')) {
            expectExport(res, type, format);
            expect(res.headers()['x-audit-event-id']).toMatch(/^\d+$/);
            expect((await res.text()).length).toBeGreaterThan(0);
          } else {
            expect(res.status(), `${role} ${format}`).toBe(403);
            expect(res.headers()['content-disposition']).toBeUndefined();
          }
        }
      });
    }
  });

  test('signed out, every download and export is 401', async ({ playwright }) => {
    await withClient(playwright, undefined, async (api) => {
      for (const path of [
        payloadPath(payloads.empty),
        '/api/v1/dead-letters/export?format=csv',
        '/api/v1/dead-letters/export?format=ndjson',
        '/api/v1/audit/export?format=csv',
        '/api/v1/audit/export?format=ndjson',
      ]) {
        const res = await api.get(path);
        expect(res.status(), path).toBe(401);
        expect(res.headers()['content-disposition'], path).toBeUndefined();
      }
    });
  });
});

test.describe('API status codes by role', () => {
  // One call per permission a role may lack, and what each role gets.
  const CALLS: { method: 'GET' | 'POST'; path: () => string; permission: Permission; scope?: 'all'; body?: () => unknown }[] = [
    { method: 'GET', path: () => '/api/v1/users', permission: 'admin.manage' },
    { method: 'GET', path: () => '/api/v1/audit/verify', permission: 'audit.read', scope: 'all' },
    { method: 'GET', path: () => '/api/v1/webhooks', permission: 'sources.policy' },
    { method: 'GET', path: () => `/api/v1/redrives/preview?source=${commerce.name}`, permission: 'deadletters.redrive' },
    {
      method: 'POST',
      path: () => `/api/v1/dead-letters/${payloads.masked.id}/reveal`,
      permission: 'payload.reveal',
      body: () => ({ reason: 'served contract' }),
    },
  ];

  test('a call without the permission is 403; with it, not refused; signed out, 401', async ({ playwright }) => {
    for (const role of ROLES) {
      await withClient(playwright, ACTING[role], async (api) => {
        for (const c of CALLS) {
          const res = await api.fetch(c.path(), { method: c.method, headers: { origin: baseURL }, ...(c.body ? { data: c.body() } : {}) });
          const label = `${role} ${c.method} ${c.path()}`;
          if (allowed(role, c.permission, c.scope)) expect(res.status(), label).toBeLessThan(400);
          else {
            expect(res.status(), label).toBe(403);
            expect(((await res.json()) as { error: { code: string } }).error.code, label).toBe('forbidden');
          }
        }
      });
    }
    await withClient(playwright, undefined, async (api) => {
      for (const c of CALLS) {
        const res = await api.fetch(c.path(), { method: c.method, headers: { origin: baseURL }, ...(c.body ? { data: c.body() } : {}) });
        expect(res.status(), `signed out ${c.method} ${c.path()}`).toBe(401);
      }
    });
  });
});

test.describe('pages by role', () => {
  const PAGES: { path: string; permission: Permission; scope?: 'all' }[] = [
    { path: '/inbox', permission: 'deadletters.read' },
    { path: '/dead-letters', permission: 'deadletters.read' },
    { path: '/sla', permission: 'deadletters.read' },
    { path: '/redrives/new', permission: 'deadletters.redrive' },
    { path: '/settings/webhooks', permission: 'sources.policy' },
    { path: '/audit', permission: 'audit.read' },
    { path: '/audit/verify', permission: 'audit.read', scope: 'all' },
    { path: '/admin', permission: 'admin.manage' },
  ];

  /** Follows the app's redirects by hand, so each hop's status is seen. */
  async function land(api: APIRequestContext, path: string): Promise<{ hops: string[]; res: APIResponse }> {
    const hops = [path];
    let res = await api.get(path, { maxRedirects: 0 });
    while (res.status() >= 300 && res.status() < 400 && hops.length < 5) {
      const next = new URL(res.headers().location!, baseURL);
      expect(next.origin, `${path} redirects within the app`).toBe(baseURL);
      hops.push(next.pathname);
      res = await api.get(next.pathname + next.search, { maxRedirects: 0 });
    }
    return { hops, res };
  }

  test('a page a role may not open ends in 403 "Not allowed"; the pages it may open are 200', async ({ playwright }) => {
    for (const role of ROLES) {
      await withClient(playwright, ACTING[role], async (api) => {
        for (const p of PAGES) {
          const { hops, res } = await land(api, p.path);
          const label = `${role} ${hops.join(' → ')}`;
          if (allowed(role, p.permission, p.scope)) {
            expect(res.status(), label).toBe(200);
            expect(hops, label).toEqual([p.path]);
          } else {
            expect.soft(res.status(), label).toBe(403);
            // In place, or on the forbidden page after one redirect.
            expect([[p.path], [p.path, '/forbidden']], label).toContainEqual(hops);
            expect(await res.text(), label).toContain('Not allowed');
          }
        }
      });
    }
  });

  test('an auditor opening /admin in the browser sees "Not allowed" with status 403', async ({ browser }) => {
    const context = await browser.newContext(as(ACTING.auditor));
    const page = await context.newPage();
    const res = await page.goto('/admin');
    expect(res?.status()).toBe(403);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not allowed');
    await context.close();
  });

  test('signed out, every page redirects to sign-in', async ({ playwright }) => {
    await withClient(playwright, undefined, async (api) => {
      for (const p of PAGES) {
        const res = await api.get(p.path, { maxRedirects: 0 });
        expect([302, 303, 307], p.path).toContain(res.status());
        expect(new URL(res.headers().location!, baseURL).pathname, p.path).toBe('/sign-in');
        const signIn = await api.get(res.headers().location!);
        expect(signIn.status()).toBe(200);
      }
    });
  });
});
