// The one guard for route handlers, server actions and pages (docs/style.md pattern 2). It runs on the
// server next to the data; the proxy and hidden buttons are never the control (CVE-2025-29927).
import { headers as nextHeaders } from 'next/headers';
import { redirect } from 'next/navigation';
import { ZodError } from 'zod';
import { AppError, forbidden } from '@/lib/errors';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { actorFromPersonalToken, actorFromSession, authorize, unauthorized, type Actor } from './actor';
import { auth } from './next-auth';
import type { Permission } from './permissions';
import { bearerToken } from './tokens';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cookie-authenticated mutations must come from the app's own origin. Browsers always send Origin
 * on cross-site POSTs and cannot forge Host, so Origin ∈ {APP_URL, this host} rules out CSRF.
 */
export function assertSameOrigin(h: Headers): void {
  const origin = h.get('origin');
  if (!origin || origin === 'null') throw forbidden('Cross-site request refused: missing Origin');
  const allowed = new Set([new URL(env().APP_URL).origin]);
  const host = h.get('host');
  if (host) {
    allowed.add(`http://${host}`);
    allowed.add(`https://${host}`);
  }
  if (!allowed.has(origin)) throw forbidden('Cross-site request refused: foreign Origin');
}

async function sessionActor(): Promise<Actor | undefined> {
  const session = await auth();
  const s = session as { uid?: string; sid?: string } | null;
  if (!s?.uid || !s.sid) return undefined;
  return actorFromSession(s.uid, s.sid);
}

/** The actor behind a route-handler request: a personal API token, or the session cookie. */
export async function requestActor(req: Request): Promise<Actor> {
  const token = bearerToken(req.headers.get('authorization'));
  if (token) {
    // A bearer request carries no ambient credential, so it needs no Origin check.
    const actor = await actorFromPersonalToken(token);
    if (!actor) throw unauthorized();
    return actor;
  }
  if (!SAFE_METHODS.has(req.method)) assertSameOrigin(req.headers);
  const actor = await sessionActor();
  if (!actor) throw unauthorized();
  return actor;
}

export function errorResponse(e: unknown): Response {
  if (e instanceof AppError) {
    return Response.json(
      { error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) } },
      { status: e.status, headers: e.headers },
    );
  }
  if (e instanceof ZodError) {
    const issues = e.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    return Response.json({ error: { code: 'unprocessable', message: 'Invalid request', details: { issues } } }, { status: 422 });
  }
  log.error({ err: e }, 'unhandled error in route handler');
  return Response.json({ error: { code: 'internal', message: 'Internal error' } }, { status: 500 });
}

type RouteContext<P> = { params: Promise<P> };

/**
 * Wrap a route handler: authenticate, authorize `permission` (or just sign-in for 'authenticated'),
 * map errors to JSON. `// METHOD /path — what it does` goes above each export.
 */
export function api<P = Record<string, string>>(
  permission: Permission | 'authenticated',
  handler: (req: Request, ctx: { actor: Actor; params: P }) => Promise<Response>,
) {
  return async (req: Request, ctx: RouteContext<P>): Promise<Response> => {
    try {
      const actor = await requestActor(req);
      if (permission !== 'authenticated') authorize(actor, permission);
      return await handler(req, { actor, params: await ctx.params });
    } catch (e) {
      return errorResponse(e);
    }
  };
}

/** For server actions: same-origin check, session, permission. */
export async function actionActor(permission?: Permission): Promise<Actor> {
  assertSameOrigin(await nextHeaders());
  const actor = await sessionActor();
  if (!actor) throw unauthorized();
  if (permission) authorize(actor, permission);
  return actor;
}

/** For pages (server components): redirect to sign-in, or to /forbidden (which answers 403) without the permission. */
export async function pageActor(permission?: Permission): Promise<Actor> {
  const actor = await sessionActor();
  if (!actor) redirect('/sign-in');
  if (permission) {
    try {
      authorize(actor, permission);
    } catch {
      redirect('/forbidden');
    }
  }
  return actor;
}

/** The current actor if signed in, without redirecting. */
export async function optionalActor(): Promise<Actor | undefined> {
  return sessionActor();
}
