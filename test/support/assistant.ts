// The assistant as a test drives it: an assistant token per role (the roles allowed first), and the
// MCP SDK's own client over Streamable HTTP against a served /api/mcp (serve-routes.ts).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPersonalToken } from '@/lib/admin/tokens';
import { setAssistantRoles } from '@/lib/auth/assistant-access';
import * as mcpRoute from '@/app/api/mcp/route';
import { ROLES, SYSTEM, type Role } from '@/lib/auth';
import { QUEUES, producerQueue } from '@/lib/queue';
import { serveRoutes } from './serve-routes';

export type ToolAnswer = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> };

/** Allow the assistant for every role and mint an assistant token for each acting user. */
export async function assistantTokens(acting: Record<Role, string>): Promise<Record<Role, string>> {
  await setAssistantRoles({ ...SYSTEM, label: 'test' }, { roles: [...ROLES] });
  const out = {} as Record<Role, string>;
  for (const role of ROLES) out[role] = (await createPersonalToken({ ...SYSTEM, label: 'test' }, acting[role], 'assistant', { scopes: ['assistant'] })).token;
  return out;
}

export async function connectAssistant(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'triage-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}

export const answerText = (a: ToolAnswer) => a.content.map((c) => c.text ?? '').join('');

/** A refused call's error, as the REST API words it. */
export const toolError = (a: ToolAnswer) => (a.structuredContent as { error: { status: number; code: string; message: string } }).error;

export interface ServedAssistants {
  url: string;
  tokens: Record<Role, string>;
  /** A connected client per role, each with that role's assistant token. */
  clients: Record<Role, Client>;
  /** Disconnect, stop the server, and empty the queues the calls filled (redrive nudges, webhook deliveries). */
  close: () => Promise<void>;
}

/** /api/mcp served on a free port, with an assistant of every role connected to it. */
export async function serveAssistants(acting: Record<Role, string>): Promise<ServedAssistants> {
  const tokens = await assistantTokens(acting);
  const served = await serveRoutes({ '/api/mcp': mcpRoute });
  const clients = {} as Record<Role, Client>;
  for (const role of ROLES) clients[role] = await connectAssistant(served.url, tokens[role]);
  return {
    url: served.url,
    tokens,
    clients,
    close: async () => {
      for (const role of ROLES) await clients[role].close();
      await served.close();
      for (const name of [QUEUES.webhooks, QUEUES.redrive]) await producerQueue(name).obliterate({ force: true });
    },
  };
}
