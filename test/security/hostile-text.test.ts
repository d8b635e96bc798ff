// Hostile text on every field of the API, generated from the security registry: each route that
// takes a body or a query gets its valid call with every text value (and key) made hostile. Text
// Postgres would not store as sent (an unpaired surrogate, a NUL) is a 422 that names a field, with
// nothing written; control characters and a megabyte of text are stored and the trail still
// verifies, or refused with a 4xx, and never a 500.
import { describe, expect, it } from 'vitest';
import { ROLES, scopeFor, type Role } from '@/lib/auth';
import { verifyChain } from '@/lib/audit';
import { db } from '@/lib/db';
import { isMutating, routeKey, urlPath, type CallSpec, type RouteEntry } from './endpoints';
import { ROUTES, type Route } from './registry';
import { ACTING } from './fixtures';
import { emptyWebhookAndRedriveQueues, seededFixtures } from './lifecycle';

const fx = seededFixtures(emptyWebhookAndRedriveQueues);

/** Every string value of a JSON value passed through `f`, or, when it holds none, every key. */
function hostile(v: unknown, f: (s: string) => string): unknown {
  const keys = !hasText(v);
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return f(x);
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, y]) => [keys ? f(k) : k, walk(y)]));
    return x;
  };
  return walk(v);
}

function hasText(v: unknown): boolean {
  if (typeof v === 'string') return true;
  if (Array.isArray(v)) return v.some(hasText);
  if (v && typeof v === 'object') return Object.values(v).some(hasText);
  return false;
}

/** The first role the entry allows (admin first: it reaches every team's data). */
function caller(e: RouteEntry): Role | undefined {
  if (e.permission === 'authenticated') return 'admin';
  return ['admin', ...ROLES].find((r) => {
    const scope = scopeFor(r as Role, e.permission as never);
    return scope !== undefined && (e.scope !== 'all' || scope === 'all');
  }) as Role | undefined;
}

async function invoke(e: Route, spec: CallSpec, role: Role, raw?: string) {
  const handler = e.handler;
  const body = raw ?? (spec.body === undefined || !isMutating(e) ? undefined : JSON.stringify(spec.body));
  const res = await handler(
    new Request(`http://127.0.0.1:3000${urlPath(e, spec)}`, {
      method: e.method,
      headers: { authorization: `Bearer ${fx.users[ACTING[role]]!.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body,
    }),
    { params: Promise.resolve(spec.params ?? {}) },
  );
  const text = await res.text();
  return { status: res.status, text };
}

describe.each(ROUTES.map((e) => [routeKey(e), e] as const))('%s', (_key, e) => {
  it('an unpaired surrogate or a NUL in any text is a 422 naming a field; nothing is written', async () => {
    const role = caller(e);
    if (!role) return;
    for (const poison of ['\ud800', '\u0000']) {
      const spec = await e.call(fx, fx.users[ACTING[role]]!);
      const texts = JSON.stringify([spec.body ?? null, spec.query ?? null]);
      if (!/"[^"]/.test(texts)) continue; // no text to poison
      const before = await db().auditEvent.count();
      const bad: CallSpec = {
        ...spec,
        ...(spec.query ? { query: Object.fromEntries(Object.entries(spec.query).map(([k, v]) => [k, `${v}${poison}`])) } : {}),
      };
      // JSON.stringify writes a lone surrogate as the \ud800 escape and a NUL as \u0000: what a script sends.
      const raw = spec.body !== undefined && isMutating(e) ? JSON.stringify(hostile(spec.body, (s) => `${s}${poison}`)) : undefined;
      const r = await invoke(e, bad, role, raw);
      if (raw === undefined && !spec.query) continue;
      if (raw === undefined) {
        // A query string reaches the server percent-encoded: an unpaired surrogate arrives as U+FFFD,
        // so only a NUL is left to refuse; either way a clear 4xx that names the parameter.
        expect([400, 422], `${routeKey(e)} with ${JSON.stringify(poison)}: ${r.text.slice(0, 200)}`).toContain(r.status);
      } else {
        expect(r.status, `${routeKey(e)} with ${JSON.stringify(poison)}: ${r.text.slice(0, 200)}`).toBe(422);
        expect(JSON.parse(r.text).error.details.issues[0].path, routeKey(e)).toEqual(expect.any(String));
      }
      expect(await db().auditEvent.count(), `${routeKey(e)} wrote an audit event`).toBe(before);
    }
  });

  it('control characters and a megabyte of text: stored and verified, or a 4xx; never a 500', async () => {
    const role = caller(e);
    if (!role || !isMutating(e)) return;
    for (const make of [(s: string) => `${s}\u0001\u001f\u007f\u2028`, (s: string) => s + 'x'.repeat(1 << 20)]) {
      const spec = await e.call(fx, fx.users[ACTING[role]]!);
      if (spec.body === undefined) continue;
      const r = await invoke(e, spec, role, JSON.stringify(hostile(spec.body, make)));
      expect(r.status, `${routeKey(e)}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
    }
  });
});

describe('after every hostile call', () => {
  it("the audit trail still verifies: its only breaks are the ones the acknowledge route's fixture made", async () => {
    const r = await verifyChain({ checkpoints: [] });
    const made = new Set((await db().auditEvent.findMany({ where: { action: 'test.event' }, select: { id: true } })).map((e) => e.id.toString()));
    expect(r.breaks.filter((b) => !made.has(b.id))).toEqual([]);
  });
});
