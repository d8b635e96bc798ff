// The OpenAPI document of the whole HTTP API, served at GET /api/v1/openapi(.json). Areas are merged
// path by path (one path may gather methods from two areas); a method described twice is a bug.
import { errorSchema, type OpenApiArea } from './area';
import { clustersArea } from './clusters';
import { ownershipArea } from './ownership';
import { deadLettersArea } from './dead-letters';
import { ingestArea } from './ingest';
import { redrivesArea } from './redrives';
import { sourcesArea } from './sources';
import { connectorsArea } from './connectors';
import { notificationsArea } from './notifications';
import { auditArea } from './audit';
import { adminArea } from './admin';
import { operationsArea } from './operations';
import { viewsArea } from './views';
import { assistantArea } from './assistant';

/** Add an area's file here to publish its routes. */
export const AREAS: OpenApiArea[] = [
  ingestArea,
  deadLettersArea,
  clustersArea,
  ownershipArea,
  redrivesArea,
  sourcesArea,
  connectorsArea,
  notificationsArea,
  auditArea,
  viewsArea,
  adminArea,
  operationsArea,
  assistantArea,
];

export function openApiDocument(areas: OpenApiArea[] = AREAS): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = { Error: errorSchema };
  for (const area of areas) {
    for (const [path, item] of Object.entries(area.paths)) {
      const merged = (paths[path] ??= {});
      for (const [method, op] of Object.entries(item)) {
        if (method in merged) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is described twice`);
        merged[method] = op;
      }
    }
    for (const [name, schema] of Object.entries(area.schemas ?? {})) {
      if (name in schemas) throw new Error(`OpenAPI: schema ${name} is described twice`);
      schemas[name] = schema;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Triage API',
      version: '1',
      description:
        'Dead-letter-queue control plane. Errors answer { "error": { "code", "message", "details"? } }. Ids of dead letters are decimal strings. An MCP server for assistants is at /api/mcp (docs/assistant.md): its tools call the same functions as these routes.',
    },
    tags: areas.map((a) => a.tag),
    paths,
    components: {
      schemas,
      securitySchemes: {
        ingestToken: { type: 'http', scheme: 'bearer', description: 'A per-source ingest token (tri_i_…), created by an admin' },
        apiToken: { type: 'http', scheme: 'bearer', description: "A personal API token (tri_p_…): acts with its user's role; one with the assistant scope is the user's MCP assistant's, audited via assistant" },
        session: { type: 'apiKey', in: 'cookie', name: 'authjs.session-token', description: 'The signed-in session; mutations need a same-origin Origin header' },
      },
    },
  };
}
