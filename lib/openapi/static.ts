// The operations of the route files not made by api() (lib/auth/guard.ts), which carry no spec: the
// public probe and this document, and the MCP transport. Auth.js's own routes are not described.
import { HealthView } from '@/lib/health';
import { errors, jsonContent, viewOf } from './area';

const openapi = {
  tags: ['operations'],
  summary: 'This OpenAPI 3.1 document of the whole API',
  description: 'Public: it describes, it grants nothing. Cacheable for 5 minutes.',
  security: [],
  responses: { '200': { description: 'The document', content: jsonContent({ type: 'object', description: 'An OpenAPI 3.1 document' }) } },
};

const jsonRpc = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, resources/read, prompts/get…)',
};
const notAllowed = { '405': { description: 'No session is kept and nothing is sent unasked: send each request as a POST', content: jsonContent(jsonRpc) } };

/** OpenAPI path template → method → operation. */
export const STATIC_PATHS: Record<string, Record<string, Record<string, unknown>>> = {
  '/api/health': {
    get: {
      tags: ['operations'],
      summary: 'Readiness: Postgres and Redis reachable, Redis safe for BullMQ',
      description:
        "No credentials: ok or not ok, nothing more. With an admin's personal API token or session, each check and why it failed. Each check gives up after 3 s.",
      security: [],
      responses: {
        '200': { description: 'Ready', content: jsonContent(viewOf(HealthView)) },
        '503': { description: 'Not ready (for an admin, the failing check names why)', content: jsonContent(viewOf(HealthView)) },
      },
    },
  },
  '/api/v1/openapi': { get: openapi },
  '/api/v1/openapi.json': { get: { ...openapi, summary: 'This OpenAPI document, under the file name tools look for' } },
  '/api/mcp': {
    post: {
      tags: ['assistant'],
      summary: 'One MCP exchange: a JSON-RPC request, answered as JSON',
      description:
        "Bearer: a personal token with the assistant scope, of a role an admin allowed (403 saying why otherwise). The tools search and read dead letters (masked), clusters, alarms, the SLA state and redrives, and start a redrive or an archive as the token's user, audited via assistant; none reveals or approves. Accept must name application/json and text/event-stream.",
      security: [{ apiToken: [] }],
      requestBody: { required: true, content: jsonContent(jsonRpc) },
      responses: {
        '200': { description: 'The JSON-RPC answer (a tool refused: result.isError with { error: { code, status, message } })', content: jsonContent(jsonRpc) },
        '202': { description: 'A notification accepted (no answer)' },
        ...errors(400, 401, 403, 406, 413, 415),
      },
    },
    get: { tags: ['assistant'], summary: 'No stream: 405', security: [], responses: notAllowed },
    delete: { tags: ['assistant'], summary: 'No session: 405', security: [], responses: notAllowed },
  },
};
