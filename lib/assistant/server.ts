// Triage as an MCP server for one person's assistant: the tools (lib/assistant/tools.ts), the
// runbook as a resource and the "triage this alarm" prompt. One server per request (the HTTP route is
// stateless) or per process (the stdio CLI), always for one authenticated actor.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z, ZodError } from 'zod';
import type { Actor } from '@/lib/auth';
import { markWrite } from '@/lib/db/replica';
import { AppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { issueList, issueText } from '@/lib/zod-issues';
import { schemaOf } from '@/lib/openapi/area';
import { ASSISTANT_TOOLS, runTool, type AssistantTool } from './tools';
import { RUNBOOK, RUNBOOK_URI, triageAlarmPrompt } from './runbook';

export const SERVER_INFO = { name: 'triage', version: '1.0.0' };

/** A refusal or a bad input as the REST API words it: `{ error: { code, status, message, details? } }`. */
export function toolError(e: unknown): CallToolResult {
  let error: { code: string; status: number; message: string; details?: unknown };
  if (e instanceof AppError) error = { code: e.code, status: e.status, message: e.message, ...(e.details ? { details: e.details } : {}) };
  else if (e instanceof ZodError) {
    error = {
      code: 'unprocessable',
      status: 422,
      message: `Invalid input: ${issueText(e.issues, { whole: 'input' })}`,
      details: { issues: issueList(e.issues) },
    };
  } else {
    log.error({ err: e }, 'unhandled error in an assistant tool');
    error = { code: 'internal', status: 500, message: 'Internal error' };
  }
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/** A tool's answer: its view as JSON text, and as structured content for clients that read it. */
function toolResult(value: unknown): CallToolResult {
  const json = JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(json) }], structuredContent: json };
}

/** The tool as tools/list describes it: its input schema is the route's zod schema, as the OpenAPI document gives it. */
function listed(t: AssistantTool) {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: schemaOf(t.input) as { type: 'object'; properties?: Record<string, object> },
    annotations: { title: t.title, readOnlyHint: !t.action, destructiveHint: false, idempotentHint: !t.action, openWorldHint: false },
  };
}

export function createAssistantServer(actor: Actor): McpServer {
  const mcp = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: `Triage, the dead-letter-queue control plane, acting as ${actor.email} (${actor.role}). Read the runbook (${RUNBOOK_URI}) first: poison or outage, diagnose before redrive, rate-limit, watch the drain.`,
  });
  // The tools are served from their zod schemas as the OpenAPI document converts them (dates as
  // strings), which McpServer.registerTool's own conversion refuses.
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ASSISTANT_TOOLS.map(listed) }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const t = ASSISTANT_TOOLS.find((x) => x.name === req.params.name);
    if (!t) return toolError(new AppError('not_found', `No tool "${req.params.name}"`));
    try {
      return toolResult(await runTool(actor, t, req.params.arguments));
    } catch (e) {
      return toolError(e);
    } finally {
      // A decision (committed, or not): its person's next reads must see it (lib/db/replica.ts). A
      // read writes nothing, so it leaves them on the replica.
      if (t.action) await markWrite(actor);
    }
  });
  mcp.registerResource(
    'runbook',
    RUNBOOK_URI,
    { title: 'On-call runbook', description: 'Poison or outage, diagnose before redrive, rate-limit, watch the drain', mimeType: 'text/markdown' },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/markdown', text: RUNBOOK }],
    }),
  );
  mcp.registerPrompt(
    'triage-alarm',
    {
      title: 'Triage this alarm',
      description: "Walk the runbook for a source's alarm with Triage's tools",
      argsSchema: { source: z.string().min(1).max(200).describe('The source, by name') },
    },
    ({ source }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: RUNBOOK_URI, mimeType: 'text/markdown', text: RUNBOOK } } },
        { role: 'user', content: { type: 'text', text: triageAlarmPrompt(source) } },
      ],
    }),
  );
  return mcp;
}
