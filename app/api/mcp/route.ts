// POST /api/mcp — Triage as an MCP server (Streamable HTTP, stateless: one JSON-RPC exchange per request) for a
//   person's assistant: Authorization: Bearer <a personal token with the assistant scope>, of a role an admin allowed
// GET, DELETE /api/mcp — 405: no session is kept and nothing is sent unasked, so there is no stream to open or end
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { assistantActor } from '@/lib/auth/assistant-access';
import { createAssistantServer } from '@/lib/assistant/server';
import { errorResponse } from '@/lib/auth/guard';
import { bearerToken } from '@/lib/auth/tokens';
import { AppError } from '@/lib/errors';

/** A JSON-RPC request to the assistant is small: tool arguments, never a payload. */
const MAX_BODY_BYTES = 1 << 20;

export async function POST(req: Request): Promise<Response> {
  try {
    // Only a bearer token: an assistant holds no browser session, so a cookie opens nothing here.
    const actor = await assistantActor(bearerToken(req.headers.get('authorization')));
    const server = createAssistantServer(actor);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  } catch (e) {
    const res = errorResponse(e);
    if (e instanceof AppError && e.status === 401) res.headers.set('WWW-Authenticate', 'Bearer realm="triage", error="invalid_token"');
    return res;
  }
}

async function noStream(): Promise<Response> {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server keeps no session; send each request as a POST' }, id: null },
    { status: 405, headers: { Allow: 'POST' } },
  );
}

export const GET = noStream;
export const DELETE = noStream;
