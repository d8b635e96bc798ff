// The MCP endpoint, described for what HTTP sees of it; its tools are the MCP protocol's to list
// (tools/list), and each mirrors a route of this document (docs/assistant.md).
import { errors, jsonContent, type OpenApiArea } from './area';

const jsonRpc = { type: 'object', description: 'A JSON-RPC 2.0 message of the Model Context Protocol (initialize, tools/list, tools/call, resources/read, prompts/get…)' };
const notAllowed = { '405': { description: 'No session is kept and nothing is sent unasked: send each request as a POST', content: jsonContent(jsonRpc) } };

export const assistantArea: OpenApiArea = {
  tag: { name: 'assistant', description: "Triage as an MCP server for a person's assistant (Streamable HTTP, stateless). docs/assistant.md says how to connect clients." },
  paths: {
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
  },
};
