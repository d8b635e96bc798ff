// A small world for the ingest and dead-letter integration tests: two teams, one user per role,
// three sources, ingest tokens and personal API tokens, and helpers that call the route handlers
// the way Next does (a Request plus params), with bearer-token auth.
import { SYSTEM, type Actor } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { createIngestToken, createPersonalToken } from '@/lib/admin/tokens';
import { createSource } from '@/lib/sources/create-source';
import { GET as listRoute } from '@/app/api/v1/dead-letters/route';

export const BASE = 'http://triage.test';

const USERS = {
  support: { email: 'support@example.com', role: 'support', team: 'commerce' },
  lead: { email: 'lead@example.com', role: 'lead', team: 'commerce' },
  auditor: { email: 'auditor@example.com', role: 'auditor' },
  admin: { email: 'admin@example.com', role: 'admin' },
  financeSupport: { email: 'finance-support@example.com', role: 'support', team: 'finance' },
} as const;
export type Who = keyof typeof USERS;

export async function world() {
  await createTeam(SYSTEM, { name: 'commerce' });
  await createTeam(SYSTEM, { name: 'finance' });
  const sources = {
    orders: await createSource(SYSTEM, { name: 'orders', team: 'commerce' }),
    payments: await createSource(SYSTEM, { name: 'payments', team: 'finance' }),
    partner: await createSource(SYSTEM, { name: 'partner-webhooks', team: 'finance', kind: 'ingest' }),
  };
  const actors = {} as Record<Who, Actor>;
  const personal = {} as Record<Who, string>;
  for (const [who, u] of Object.entries(USERS) as [Who, (typeof USERS)[Who]][]) {
    const user = await createUser(SYSTEM, { email: u.email, role: u.role, team: 'team' in u ? u.team : undefined });
    actors[who] = { userId: user.id, email: user.email, role: u.role, teamId: user.teamId, via: 'token' };
    personal[who] = (await createPersonalToken(SYSTEM, u.email)).token;
  }
  const ingest = {
    orders: (await createIngestToken(SYSTEM, 'orders')).token,
    payments: (await createIngestToken(SYSTEM, 'payments')).token,
    partner: (await createIngestToken(SYSTEM, 'partner-webhooks')).token,
  };
  return { sources, actors, tokens: { personal, ingest } };
}

export type World = Awaited<ReturnType<typeof world>>;

export const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

export function jsonRequest(path: string, token: string | undefined, body: unknown, init: { method?: string; contentType?: string } = {}) {
  return new Request(BASE + path, {
    method: init.method ?? 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': init.contentType ?? 'application/json' },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
  });
}

export function getRequest(path: string, token: string | undefined) {
  return new Request(BASE + path, { headers: token ? { authorization: `Bearer ${token}` } : {} });
}

export const ctx = <P>(params: P) => ({ params: Promise.resolve(params) });

/** GET /api/v1/dead-letters?`query` with `who`'s personal token: the status and the body. */
export async function listAs<Body>(w: World, who: Who, query: string): Promise<{ status: number; body: Body }> {
  const r = await listRoute(getRequest(`/api/v1/dead-letters?${query}`, w.tokens.personal[who]), ctx({}));
  return { status: r.status, body: (await r.json()) as Body };
}
