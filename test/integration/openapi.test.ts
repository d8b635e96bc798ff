// The OpenAPI document describes the whole HTTP API: every route file under app/api (but Auth.js's
// own) with exactly the methods it exports, and nothing that does not exist.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeDb } from '@/lib/db';
import { closeQueues } from '@/lib/queue';
import { GET as getOpenApi } from '@/app/api/v1/openapi/route';

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
    return e.name === 'route.ts' ? [full] : [];
  });
}

/** app/api/v1/webhooks/[id]/route.ts → /api/v1/webhooks/{id} */
function openApiPath(file: string): string {
  const segments = relative(ROOT, file).split(sep).slice(0, -1);
  return '/api/' + segments.map((s) => s.replace(/^\[(\w+)\]$/, '{$1}')).join('/');
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

describe('OpenAPI document', () => {
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

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
