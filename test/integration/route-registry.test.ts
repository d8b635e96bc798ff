// The API's one registry (lib/openapi/routes.ts): every route file made by api() is in it, under the
// path its folder gives, and every operation's spec says what the OpenAPI document and the security
// suite need: a summary, a known tag, and each success answer with its view (or its media). What
// the routes answer is checked against those views by test/integration/openapi.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTE_FILES, registryEntries } from '@/lib/openapi/routes';
import { TAGS } from '@/lib/openapi/tags';

const API = path.resolve('app/api');

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? routeFiles(p) : name === 'route.ts' ? [p] : [];
  });
}

/** app/api/v1/views/[id]/route.ts → /api/v1/views/:id */
const templateOf = (file: string) =>
  `/${path
    .relative(path.resolve('app'), path.dirname(file))
    .split(path.sep)
    .map((s) => s.replace(/^\[(\w+)\]$/, ':$1'))
    .join('/')}`;

describe('the route registry', () => {
  it('lists every route file made by api(), under its folder path, and no other', () => {
    const made = routeFiles(API)
      // api() itself, or one of its shorthands in lib/auth/guard.ts (jsonRoute, noContentRoute, familyRoute).
      .filter((f) => /=\s*(api|jsonRoute|noContentRoute|familyRoute)\(/.test(readFileSync(f, 'utf8')))
      .map(templateOf)
      .sort();
    expect(made.length).toBeGreaterThan(50);
    expect(Object.keys(ROUTE_FILES).sort(), 'ROUTE_FILES in lib/openapi/routes.ts').toEqual(made);
  });

  const entries = registryEntries();

  it.each(entries.map((e) => [`${e.method} ${e.path}`, e] as const))('%s: a summary, a known tag, its answers', (_k, e) => {
    const { spec } = e;
    expect(spec.summary.trim(), 'summary').not.toBe('');
    expect(spec.tags.length, 'tags').toBeGreaterThan(0);
    for (const tag of spec.tags)
      expect(
        TAGS.map((t) => t.name),
        `tag ${tag} is described in lib/openapi/tags.ts`,
      ).toContain(tag);
    const statuses = Object.keys(spec.responses).map(Number);
    expect(
      statuses.some((s) => s >= 200 && s < 300),
      'a success answer',
    ).toBe(true);
    for (const [status, r] of Object.entries(spec.responses)) {
      expect(r.description.trim(), `${status} description`).not.toBe('');
      // A success answer has a body the document can describe, but a 204 has none.
      if (status !== '204') expect(r.view !== undefined || r.content !== undefined, `${status}: a view or a content`).toBe(true);
      if (r.view) expect('_zod' in r.view, `${status}: the view is a zod schema`).toBe(true);
    }
    for (const s of spec.errors ?? []) expect(s).toBeGreaterThanOrEqual(400);
  });
});
