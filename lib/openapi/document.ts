// The OpenAPI document of the whole HTTP API, served at GET /api/v1/openapi(.json), generated from the
// route specs (routes.ts: each api() handler's summary, tag, params/query/body schemas and answers)
// plus what they cannot say (static.ts, tags.ts, components.ts).
import type { z } from 'zod';
import { errors, errorSchema, jsonContent, ref, schemaOf, type JsonSchema } from './area';
import { INPUT_COMPONENTS, VIEW_COMPONENTS } from './components';
import { registryEntries, type RegistryEntry } from './routes';
import { STATIC_PATHS } from './static';
import { TAGS } from './tags';

/** :id → {id}: the registry's (and app/'s) path template as OpenAPI writes it. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

const byZod = (components: Record<string, z.ZodType>) => new Map(Object.entries(components).map(([name, s]) => [s as object, name]));
const views = byZod(VIEW_COMPONENTS);
const inputs = byZod(INPUT_COMPONENTS);

function parameters(e: RegistryEntry): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const described = e.spec.params ? (schemaOf(e.spec.params).properties as Record<string, JsonSchema> | undefined) : undefined;
  for (const [, name] of e.path.matchAll(/:(\w+)/g)) {
    const { description, ...schema } = described?.[name!] ?? { type: 'string' };
    out.push({ name, in: 'path', required: true, schema, ...(description ? { description } : {}) });
  }
  if (e.spec.query) {
    // A query schema is an object of strings the guard reads (lib/auth/guard.ts queryRecord): one parameter a key.
    const q = schemaOf(e.spec.query);
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries((q.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      const { description, ...schema } = prop;
      out.push({ name, in: 'query', required: required.has(name), schema, ...(description ? { description } : {}) });
    }
  }
  return [...out, ...(e.spec.openapi?.parameters ?? [])];
}

/** Error answers a spec implies: a caller (401/403), a path param (404), a schema (422), a JSON body (413/415). */
function impliedErrors(e: RegistryEntry): number[] {
  const s = e.spec;
  const json = s.body !== undefined && s.body !== 'raw';
  return [
    401,
    // An ingest token is of one source: another source's path is a 404, never a 403.
    ...(e.permission === 'ingest-token' ? [] : [403]),
    ...(s.params ? [404] : []),
    ...(s.params || s.query || json ? [422] : []),
    ...(json ? [413, 415] : []),
    ...(s.errors ?? []),
  ];
}

function operation(e: RegistryEntry): Record<string, unknown> {
  const viewRef = (s: z.ZodType) => (views.has(s) ? ref(views.get(s)!) : schemaOf(s, 'output'));
  const { spec } = e;
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    const content = {
      ...(r.view ? jsonContent(viewRef(r.view)) : {}),
      ...Object.fromEntries(Object.entries(r.content ?? {}).map(([media, schema]) => [media, { schema }])),
    };
    responses[status] = { description: r.description, ...(Object.keys(content).length ? { content } : {}) };
  }
  const errorAnswers = errors(...[...new Set(impliedErrors(e))].filter((s) => !(String(s) in responses)).sort());
  const body =
    spec.openapi?.requestBody ??
    (spec.body && spec.body !== 'raw'
      ? { required: !spec.optionalBody, content: jsonContent(inputs.has(spec.body) ? ref(inputs.get(spec.body)!) : schemaOf(spec.body)) }
      : undefined);
  const params = parameters(e);
  return {
    tags: spec.tags,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    security: e.permission === 'ingest-token' ? [{ ingestToken: [] }] : [{ apiToken: [] }, { session: [] }],
    // What api() checks, from the one permission map: callers can tell which role may call it, and the
    // browser security suite walks the served document rather than a list of its own.
    'x-permission': e.permission,
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...responses, ...errorAnswers },
  };
}

let memo: Record<string, unknown> | undefined;

export function openApiDocument(): Record<string, unknown> {
  if (memo) return memo;
  const paths: Record<string, Record<string, unknown>> = structuredClone(STATIC_PATHS);
  for (const e of registryEntries()) {
    const item = (paths[openApiPath(e.path)] ??= {});
    const method = e.method.toLowerCase();
    if (method in item) throw new Error(`OpenAPI: ${e.method} ${e.path} is described twice`);
    item[method] = operation(e);
  }
  const schemas: Record<string, unknown> = { Error: errorSchema };
  for (const [name, s] of Object.entries(VIEW_COMPONENTS)) schemas[name] = schemaOf(s, 'output');
  for (const [name, s] of Object.entries(INPUT_COMPONENTS)) schemas[name] = schemaOf(s);
  memo = {
    openapi: '3.1.0',
    info: {
      title: 'Triage API',
      version: '1',
      description:
        'Dead-letter-queue control plane. Errors answer { "error": { "code", "message", "details"? } }. Ids of dead letters are decimal strings. An MCP server for assistants is at /api/mcp (docs/assistant.md): its tools call the same functions as these routes.',
    },
    tags: TAGS,
    paths,
    components: {
      schemas,
      securitySchemes: {
        ingestToken: { type: 'http', scheme: 'bearer', description: 'A per-source ingest token (tri_i_…), created by an admin' },
        apiToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A personal API token (tri_p_…): acts with its user's role; one with the assistant scope is the user's MCP assistant's, audited via assistant",
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'authjs.session-token',
          description: 'The signed-in session; mutations need a same-origin Origin header',
        },
      },
    },
  };
  return memo;
}
