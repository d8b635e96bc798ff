// The one guard for route handlers, server actions and pages (docs/style.md pattern 2). It runs on the
// server next to the data; the proxy and hidden buttons are never the control (CVE-2025-29927).
import { headers as nextHeaders } from 'next/headers';
import { redirect } from 'next/navigation';
import { z, ZodError } from 'zod';
import { AppError, forbidden } from '@/lib/errors';
import { env } from '@/lib/env';
import { readJsonBody } from '@/lib/request-body';
import { assertStorableText } from '@/lib/text-input';
import { log } from '@/lib/log';
import { markWrite } from '@/lib/db/replica';
import { issueList } from '@/lib/zod-issues';
import { assertAssistantAllowed } from './assistant-access';
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
    // An assistant's token works on the REST API too, for the roles an admin allowed it.
    await assertAssistantAllowed(actor);
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
    return Response.json({ error: { code: 'unprocessable', message: 'Invalid request', details: { issues: issueList(e.issues) } } }, { status: 422 });
  }
  log.error({ err: e }, 'unhandled error in route handler');
  return Response.json({ error: { code: 'internal', message: 'Internal error' } }, { status: 500 });
}

type RouteContext = { params: Promise<Record<string, string | string[]>> };

/**
 * Who may call a route: a permission of the map, any signed-in role ('authenticated'), or
 * 'ingest-token': a source's ingest token, checked by lib/ingest against the path's source (no actor).
 */
export type RouteAuth = Permission | 'authenticated' | 'ingest-token';

/**
 * What a route takes, declared next to it (trigger.dev's `createActionApiRoute`): zod schemas for the
 * path's params, the query string and the JSON body, and the body's byte limit. `body: 'raw'`: the
 * handler streams `req` itself (NDJSON, a payload upload), under the cap its lib function sets.
 */
/**
 * One answer of a route as the OpenAPI document shows it: `view`, the zod schema of its JSON body (a
 * response view, docs/style.md "Views"), or `content` for other media (bytes, CSV, Prometheus text).
 */
export interface ResponseSpec {
  description: string;
  view?: z.ZodType;
  content?: Record<string, Record<string, unknown>>;
}

/**
 * What a route takes and answers, declared next to it (trigger.dev's `createActionApiRoute`): the
 * OpenAPI document is generated from these specs (lib/openapi), and the security suite walks them.
 */
export interface RouteSpec<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | 'raw' | undefined> {
  /** One line: the operation's OpenAPI summary. */
  summary: string;
  description?: string;
  /** The OpenAPI tag: the area the route belongs to (lib/openapi/tags.ts describes each). */
  tags: string[];
  /** The success answers (and answers with a body of their own, e.g. a 410 tombstone), by status. */
  responses: Record<number, ResponseSpec>;
  /**
   * Error statuses beyond those the spec implies (401/403 for a caller, 404 for a path param, 422 for
   * a schema, 413/415 for a JSON body): e.g. 409 for a state conflict.
   */
  errors?: number[];
  /** What the schemas cannot say: header parameters, a raw body's media types. */
  openapi?: { parameters?: Record<string, unknown>[]; requestBody?: Record<string, unknown> };
  params?: P;
  query?: Q;
  body?: B;
  /** The JSON body's cap (413 past it); 1 MiB unless said. */
  maxBytes?: number;
  /** A command whose body may be left out ({ reason? }): an empty request parses as `{}`. */
  optionalBody?: boolean;
}

export type AnyRouteSpec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | 'raw' | undefined>;

/** A handler made by api(): it carries its spec, which the OpenAPI document and the security suite read. */
export type RouteHandler = ((req: Request, ctx: RouteContext) => Promise<Response>) & {
  route: { permission: RouteAuth; spec: AnyRouteSpec };
};

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives: its caller and its input, parsed and typed. */
export interface RouteInput<A extends RouteAuth, P, Q, B> {
  req: Request;
  actor: A extends 'ingest-token' ? undefined : Actor;
  params: Parsed<P>;
  query: Parsed<Q>;
  body: B extends 'raw' ? undefined : Parsed<B>;
}

/** A path param as the folder names it (`[id]` → `pathParams('id')`): a string, checked by lib (404). */
export function pathParams<K extends string>(...names: K[]): z.ZodObject<Record<K, z.ZodString>> {
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])) as Record<K, z.ZodString>);
}

/**
 * The query string as a schema's input: each key once, its non-empty values joined by commas
 * (`?status=a&status=b` and `?status=a,b` read alike; `?q=` is as if absent).
 */
export function queryRecord(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key).filter((v) => v !== '');
    if (values.length) out[key] = values.join(',');
  }
  return out;
}

/** A command's body may be left out: no bytes, or neither a type nor a body. */
function emptyBody(req: Request): boolean {
  return req.headers.get('content-length') === '0' || (!req.headers.get('content-type') && !req.body);
}

/**
 * Wrap a route handler: authenticate, authorize `permission` (or just sign-in for 'authenticated'),
 * read and parse the declared input (415 not JSON, 413 too large, 400 bad JSON, 422 schema), map
 * errors to JSON. `// METHOD /path — what it does` goes above each export.
 */
export function api<
  A extends RouteAuth,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | 'raw' | undefined = undefined,
>(permission: A, spec: RouteSpec<P, Q, B>, handler: (input: RouteInput<A, P, Q, B>) => Promise<Response>): RouteHandler {
  const route = async (req: Request, ctx: RouteContext): Promise<Response> => {
    try {
      let actor: Actor | undefined;
      if (permission !== 'ingest-token') {
        actor = await requestActor(req);
        if (permission !== 'authenticated') authorize(actor, permission);
      }
      const rawParams = await ctx.params;
      assertStorableText(rawParams, 'path');
      const params = spec.params ? spec.params.parse(rawParams) : undefined;
      const rawQuery = queryRecord(new URL(req.url));
      assertStorableText(rawQuery, 'query');
      const query = spec.query ? spec.query.parse(rawQuery) : undefined;
      let body: unknown;
      if (spec.body && spec.body !== 'raw') {
        const raw = spec.optionalBody && emptyBody(req) ? {} : await readJsonBody(req, spec.maxBytes);
        body = spec.body.parse(raw);
      }
      try {
        return await handler({ req, actor, params, query, body } as RouteInput<A, P, Q, B>);
      } finally {
        // The caller's next reads must see what this request wrote (lib/db/replica.ts).
        if (req.method !== 'GET' && req.method !== 'HEAD') await markWrite(actor);
      }
    } catch (e) {
      return errorResponse(e);
    }
  };
  return Object.assign(route, { route: { permission, spec: spec as AnyRouteSpec } });
}

/**
 * api() for a handler whose answer is a JSON body: `answer` returns what to send, with the success
 * status the spec declares (201 for a spec whose one success answer is 201), so the two cannot differ.
 */
export function jsonRoute<
  A extends RouteAuth,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | 'raw' | undefined = undefined,
>(permission: A, answer: (input: RouteInput<A, P, Q, B>) => Promise<unknown>, spec: RouteSpec<P, Q, B>): RouteHandler {
  const ok = Object.keys(spec.responses)
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  const status = ok.length === 1 ? ok[0]! : 200;
  return api(permission, spec, async (input) => Response.json(await answer(input), { status }));
}

/** api() for a command that answers 204 with no body (a delete). */
export function noContentRoute<A extends RouteAuth, P extends z.ZodType | undefined = undefined>(
  permission: A,
  command: (input: RouteInput<A, P, undefined, undefined>) => Promise<unknown>,
  spec: RouteSpec<P, undefined, undefined>,
): RouteHandler {
  return api(permission, spec, async (input) => {
    await command(input);
    return new Response(null, { status: 204 });
  });
}

/**
 * One of a family of sibling routes (the redrive task commands, the import switch, the bulk decisions):
 * `preset` is the spec they share, declared once in lib beside their function; `words` are this route's
 * summary and description, which the preset leaves to each.
 */
export function familyRoute<
  A extends RouteAuth,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | 'raw' | undefined = undefined,
>(
  preset: Omit<RouteSpec<P, Q, B>, 'summary' | 'description'>,
  permission: A,
  handler: (input: RouteInput<A, P, Q, B>) => Promise<Response>,
  words: { summary: string; description?: string },
): RouteHandler {
  return api(permission, { ...words, ...preset }, handler);
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
