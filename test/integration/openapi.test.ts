// The OpenAPI document describes the whole HTTP API: every route file under app/api (but Auth.js's
// own) with exactly the methods it exports, and nothing that does not exist; and what the routes
// answer is what it says: every JSON body of a valid call (the security suite's registry) is checked
// against the document's schema for that path, method and status.
import { readdirSync } from 'node:fs';
import { ROUTE_FILE } from '../security/inventory';
import { join, relative, sep } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROLES, SYSTEM, scopeFor } from '@/lib/auth';
import { createIngestToken } from '@/lib/admin/tokens';
import { QUEUES } from '@/lib/queue';
import { GET as getOpenApi } from '@/app/api/v1/openapi/route';
import { freshDatabase } from '../support/lifecycle';
import { isMutating, routeKey, urlPath, type RouteEntry } from '../security/endpoints';
import { ROUTES } from '../security/registry';
import { ACTING, seedFixtures, type Fixtures } from '../security/fixtures';

const ROOT = join(process.cwd(), 'app', 'api');
const SKIP = [join(ROOT, 'auth')];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

type Operation = { summary?: string; responses?: Record<string, unknown> };
type Doc = { paths: Record<string, Record<string, Operation>> };

function routeFiles(dir: string): string[] {
  if (SKIP.includes(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return routeFiles(full);
    return ROUTE_FILE.test(full) ? [full] : [];
  });
}

/** app/api/v1/webhooks/[id]/route.ts → /api/v1/webhooks/{id} */
function openApiPath(file: string): string {
  const segments = relative(ROOT, file).split(sep).slice(0, -1);
  return `/api/${segments.map((s) => s.replace(/^\[(\w+)\]$/, '{$1}')).join('/')}`;
}

async function routes(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const file of routeFiles(ROOT)) {
    const mod = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
    out.set(
      openApiPath(file),
      METHODS.filter((m) => typeof mod[m] === 'function').map((m) => m.toLowerCase()),
    );
  }
  return out;
}

// One reset and the security suite's fixtures for the whole file. The calls below queue webhook
// deliveries and redrive nudges for rows the next file's reset removes: their queues are emptied
// at the end of the file, after the last call.
let fx: Fixtures;
freshDatabase({
  per: 'file',
  seed: async () => {
    fx = await seedFixtures();
  },
  queues: [QUEUES.webhooks, QUEUES.redrive],
});

describe('OpenAPI document', () => {
  it('describes every route and every method it exports, and nothing else', async () => {
    const doc = (await getOpenApi().json()) as Doc;
    const actual = await routes();
    expect(actual.size).toBeGreaterThan(30);
    expect(actual.has('/api/v1/webhooks/{id}')).toBe(true);

    for (const [path, methods] of actual) {
      expect(methods.length, `${path} exports no handler`).toBeGreaterThan(0);
      expect(doc.paths[path], `${path} is not in the document`).toBeDefined();
      const described = Object.keys(doc.paths[path]!).filter((k) => (METHODS as readonly string[]).includes(k.toUpperCase()));
      expect(described.sort(), path).toEqual([...methods].sort());
    }
    for (const path of Object.keys(doc.paths)) {
      expect(actual.has(path), `${path} is described but has no route`).toBe(true);
    }
  });

  it('gives every operation a summary and its responses', async () => {
    const doc = (await getOpenApi().json()) as Doc;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.summary, `${method.toUpperCase()} ${path} summary`).toMatch(/\S/);
        expect(Object.keys(op.responses ?? {}).length, `${method.toUpperCase()} ${path} responses`).toBeGreaterThan(0);
      }
    }
  });
});

type Media = Record<string, { schema?: unknown }>;
type Described = { responses?: Record<string, { content?: Media }> };

/** The registry's path template (:id) as the document's ({id}). */
const docPath = (e: RouteEntry) => e.path.replace(/:(\w+)/g, '{$1}');

/** The role that makes the call: an admin, unless the permission leaves admins out. */
function caller(e: RouteEntry) {
  const role = ['admin', ...ROLES].find((r) => {
    if (e.permission === 'authenticated') return true;
    const scope = scopeFor(r as (typeof ROLES)[number], e.permission);
    return scope !== undefined && (e.scope !== 'all' || scope === 'all');
  });
  return role as (typeof ROLES)[number];
}

describe('every JSON body a route answers matches the document', () => {
  let doc: Record<string, unknown> & { paths: Record<string, Record<string, Described>> };
  // One validator over the whole document: responses' $refs point into its components.
  // Formats are left to the patterns zod writes beside them (uuid, date-time).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

  beforeAll(async () => {
    doc = (await getOpenApi().json()) as typeof doc;
    ajv.addSchema(doc, 'openapi');
  });

  it('compiles every component schema as JSON Schema 2020-12 (OpenAPI 3.1)', () => {
    const schemas = (doc.components as { schemas: Record<string, unknown> }).schemas;
    expect(Object.keys(schemas).length).toBeGreaterThan(10);
    for (const name of Object.keys(schemas)) expect(() => ajv.getSchema(`openapi#/components/schemas/${name}`), name).not.toThrow();
  });

  it.each(ROUTES.map((e) => [routeKey(e), e] as const))('%s', async (_key, e) => {
    const as = fx.users[ACTING[caller(e)]]!;
    const spec = await e.call(fx, as);
    const handler = e.handler;
    const body = spec.body === undefined || !isMutating(e) ? undefined : JSON.stringify(spec.body);
    const res = await handler(
      new Request(`http://127.0.0.1:3000${urlPath(e, spec)}`, {
        method: e.method,
        headers: { authorization: `Bearer ${as.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body,
      }),
      { params: Promise.resolve(spec.params ?? {}) },
    );
    expect(res.status).toBeLessThan(300);
    await expectDocumented(docPath(e), e.method, res);
  });

  /** The answer's status is in the document for that path and method, and a JSON body matches its schema. */
  async function expectDocumented(path: string, method: string, res: Response) {
    const text = await res.text();
    const key = `${method} ${path} → ${res.status}`;
    const answer = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(res.status)];
    expect(answer, `${key} is not in the document: ${text.slice(0, 500)}`).toBeDefined();
    if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) return;
    expect(answer!.content?.['application/json']?.schema, `${key} has no JSON schema`).toBeDefined();
    const pointer = ['paths', path, method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema']
      .map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    const validate = ajv.getSchema(`openapi#/${pointer}`)!;
    const ok = validate(JSON.parse(text));
    expect(validate.errors ?? [], `${key}: ${text.slice(0, 2000)}`).toEqual([]);
    expect(ok).toBe(true);
  }

  it('GET /api/health, for a stranger and for an admin', async () => {
    const { GET } = await import('@/app/api/health/route');
    await expectDocumented('/api/health', 'GET', await GET(new Request('http://127.0.0.1:3000/api/health')));
    const admin = fx.users[ACTING.admin]!;
    await expectDocumented(
      '/api/health',
      'GET',
      await GET(new Request('http://127.0.0.1:3000/api/health', { headers: { authorization: `Bearer ${admin.token}` } })),
    );
  });

  it('the ingest routes (an ingest token): a batch, a raw dead letter and its idempotent retry', async () => {
    const { POST: batch } = await import('@/app/api/v1/sources/[source]/dead-letters/route');
    const { POST: raw } = await import('@/app/api/v1/sources/[source]/dead-letters/raw/route');
    const { token } = await createIngestToken(SYSTEM, 'orders');
    const ctx = { params: Promise.resolve({ source: 'orders' }) };
    const url = 'http://127.0.0.1:3000/api/v1/sources/orders/dead-letters';
    const body = JSON.stringify({
      deadLetters: [{ messageId: 'openapi-batch', payload: '{"order":1}', errorType: 'SchemaError', errorMessage: 'unknown field' }],
    });
    const json = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    await expectDocumented('/api/v1/sources/{source}/dead-letters', 'POST', await batch(new Request(url, { method: 'POST', headers: json, body }), ctx));
    for (let i = 0; i < 2; i++) {
      const res = await raw(
        new Request(`${url}/raw`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'triage-message-id': 'openapi-raw' }, body: 'bytes' }),
        ctx,
      );
      expect(res.status).toBe(i === 0 ? 201 : 200);
      await expectDocumented('/api/v1/sources/{source}/dead-letters/raw', 'POST', res);
    }
  });
});
