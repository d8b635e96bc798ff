// Triage as an MCP server, driven as an assistant drives it: the SDK's own client over Streamable
// HTTP against the /api/mcp route behind a real HTTP server (and once over stdio through the CLI).
// The assistant gets no more than its user: no reveal, no approval, no outage redrive, and every
// action is on the audit trail as the user "via assistant".
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as approveRoute from '@/app/api/v1/redrives/[id]/approve/route';
import * as deadLetterRoute from '@/app/api/v1/dead-letters/[id]/route';
import { setAssistantRoles } from '@/lib/auth/assistant-access';
import { ASSISTANT_TOOLS } from '@/lib/assistant/tools';
import { RUNBOOK_URI } from '@/lib/assistant/runbook';
import { ROLES, SYSTEM } from '@/lib/auth';
import { auditEventViews } from '@/lib/audit-trail/present';
import { exportAuditEvents } from '@/lib/audit-trail/export';
import { verifyChain } from '@/lib/audit';
import { closeDb, db } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { revealPayload } from '@/lib/deadletters/reveal-payload';
import { closeQueues } from '@/lib/queue';
import { drainBacklog } from '@/lib/search';
import { resetDatabase } from '../support/db';
import { parseCsvRows } from '../support/csv';
import {
  answerText as text,
  callTool,
  connectAssistant,
  serveAssistants,
  toolError as errorOf,
  type ServedAssistants,
  type ToolAnswer,
} from '../support/assistant';
import { ACTING, newSource, principal, seedFixtures, unique, type Fixtures, type FixtureSource } from '../security/fixtures';

const CARD = '4111111111111111';
const EMAIL = 'holder.name@example.com';

let fx: Fixtures;
let served: ServedAssistants;
/** An assistant token per role (the assistant scope). */
let assistant: Record<string, string>;
const clients: Client[] = [];

async function connect(token: string): Promise<Client> {
  const client = await connectAssistant(served.url, token);
  clients.push(client);
  return client;
}

const call = callTool;

async function letters(source: FixtureSource, n: number, opts: { errorType?: string; errorMessage?: string; payload?: string } = {}): Promise<string[]> {
  const errorType = opts.errorType ?? `Assist${unique('e').replace('-', '')}Error`;
  const rows = await recordDeadLetters(
    { id: source.id, retentionSeconds: 14 * 86400 },
    Array.from({ length: n }, (_, i) => ({
      messageId: unique(`assist-${i}`),
      payload: Buffer.from(opts.payload ?? JSON.stringify({ order: i })),
      contentType: 'application/json',
      reason: 'Rejected' as const,
      errorType,
      errorMessage: opts.errorMessage ?? 'field "gift" is unknown',
    })),
  );
  return rows.map((r) => r.id);
}

const clusterOf = async (id: string) => (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { clusterId: true } })).clusterId!;

beforeAll(async () => {
  await resetDatabase();
  fx = await seedFixtures();
  served = await serveAssistants(ACTING);
  assistant = served.tokens;
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await served.close();
  await closeQueues();
  await closeDb();
});

describe('connecting', () => {
  it('lists the tools, the runbook and the "triage this alarm" prompt; no tool reveals or approves', async () => {
    const client = await connect(assistant.support!);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(ASSISTANT_TOOLS.map((t) => t.name).sort());
    expect(tools.map((t) => t.name).filter((n) => /approve|reveal|discard/.test(n))).toEqual([]);
    const search = tools.find((t) => t.name === 'search_dead_letters')!;
    expect(search.inputSchema.properties).toHaveProperty('from');
    expect(search.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'start_redrive')!.annotations?.readOnlyHint).toBe(false);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([RUNBOOK_URI]);
    const runbook = await client.readResource({ uri: RUNBOOK_URI });
    const body = (runbook.contents[0] as { text: string }).text;
    for (const step of ['Poison or outage', 'Diagnose before you redrive', 'rate-limited', 'Watch the drain']) expect(body).toContain(step);

    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['triage-alarm']);
    const prompt = await client.getPrompt({ name: 'triage-alarm', arguments: { source: 'orders' } });
    const words = JSON.stringify(prompt.messages);
    for (const tool of ['explain_alarm', 'source_alarms', 'list_clusters', 'get_cluster']) expect(words).toContain(tool);
  });

  it('refuses a token without the assistant scope, and a role the admin did not allow, with the reason', async () => {
    const initialize = (token: string) =>
      fetch(`${served.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      });
    const plain = await initialize(fx.users[ACTING.support]!.token);
    expect(plain.status).toBe(403);
    expect(((await plain.json()) as { error: { message: string } }).error.message).toMatch(/no assistant scope/);
    const none = await initialize('tri_p_not-a-token');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);

    await setAssistantRoles(SYSTEM, { roles: ['support', 'lead', 'admin'] });
    try {
      const auditor = await initialize(assistant.auditor!);
      expect(auditor.status).toBe(403);
      expect(((await auditor.json()) as { error: { message: string } }).error.message).toMatch(/not allowed for the auditor role/);
      // The same token on the REST API: the assistant's on every door.
      const id = (await letters(fx.sources.orders, 1))[0]!;
      const res = await deadLetterRoute.GET(
        new Request(`http://127.0.0.1/api/v1/dead-letters/${id}`, { headers: { authorization: `Bearer ${assistant.auditor}` } }),
        { params: Promise.resolve({ id }) },
      );
      expect(res.status).toBe(403);
    } finally {
      await setAssistantRoles(SYSTEM, { roles: [...ROLES] });
    }
    expect((await initialize(assistant.auditor!)).status).toBe(200);
  });

  it('answers GET and DELETE with 405: no session, no stream', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${served.url}/api/mcp`, { method, headers: { authorization: `Bearer ${assistant.support}`, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
    }
  });
});

describe('what the assistant may not do', () => {
  it("an auditor's assistant reads, but cannot start anything, and nothing is written", async () => {
    const ids = await letters(fx.sources.orders, 2);
    const cluster = await clusterOf(ids[0]!);
    const client = await connect(assistant.auditor!);
    expect((await call(client, 'get_dead_letter', { id: ids[0] })).isError).toBeFalsy();
    const before = await db().auditEvent.count();
    for (const [name, args] of [
      ['start_redrive', { selection: { ids }, reason: 'try' }],
      ['archive_dead_letter', { id: ids[0], reason: 'try' }],
      ['archive_cluster', { id: cluster, reason: 'try' }],
      ['preview_redrive', { selection: { ids } }],
    ] as const) {
      const answer = await call(client, name, args);
      expect(answer.isError, name).toBe(true);
      expect(errorOf(answer).status, name).toBe(403);
    }
    expect(await db().auditEvent.count()).toBe(before);
    expect(await db().redriveTask.count({ where: { items: { some: { deadLetterId: { in: ids.map(BigInt) } } } } })).toBe(0);
    expect((await db().deadLetter.findMany({ where: { id: { in: ids.map(BigInt) } }, select: { status: true } })).map((d) => d.status)).toEqual([
      'open',
      'open',
    ]);
  });

  it('a masked value stays masked, even after its user revealed it in person', async () => {
    const [id] = await letters(fx.sources.orders, 1, {
      payload: JSON.stringify({ card: CARD, contact: EMAIL }),
      errorType: 'AssistMaskedError',
      errorMessage: `charge for ${EMAIL} with ${CARD} failed`,
    });
    await drainBacklog();
    const support = fx.users[ACTING.support]!;
    await revealPayload(principal(support), id!, 'chargeback', 'page');
    const client = await connect(assistant.support!);
    const answers = [
      await call(client, 'get_dead_letter', { id }),
      await call(client, 'search_dead_letters', { errorType: 'AssistMaskedError' }),
      await call(client, 'search_dead_letters', { q: 'holder.name' }),
      await call(client, 'get_cluster', { id: await clusterOf(id!) }),
      await call(client, 'list_clusters', { errorType: 'AssistMaskedError' }),
    ];
    expect(JSON.stringify(answers[0]!.structuredContent)).toContain(id);
    for (const a of answers) {
      expect(a.isError).toBeFalsy();
      expect(text(a)).not.toContain(CARD);
      expect(text(a)).not.toContain(EMAIL);
    }
  });

  it('a redrive of a cluster classified as an outage is refused through the assistant', async () => {
    const source = await newSource(fx.sources.orders);
    const ids = await letters(source, 2, { errorType: 'GatewayTimeoutError', errorMessage: 'upstream answered 503 Service Unavailable' });
    const cluster = await clusterOf(ids[0]!);
    const client = await connect(assistant.lead!);
    const clusters = (await call(client, 'list_clusters', { source: [source.name] })).structuredContent as { clusters: { id: string; verdict: string }[] };
    expect(clusters.clusters.find((c) => c.id === cluster)?.verdict).toBe('outage');
    const explained = (await call(client, 'explain_alarm', { source: source.name })).structuredContent as { label: string; hint: string };
    expect(explained.label).toBe('outage');
    expect(explained.hint).toMatch(/check the downstream first/);
    for (const selection of [{ cluster }, { ids }, { source: source.name }]) {
      const answer = await call(client, 'start_redrive', { selection, reason: 'the gateway is back' });
      expect(answer.isError, JSON.stringify(selection)).toBe(true);
      expect(errorOf(answer).message).toMatch(/an assistant does not redrive an outage/);
    }
    expect(await db().redriveTask.count({ where: { sourceId: source.id } })).toBe(0);
  });
});

describe('actions as the user, via assistant', () => {
  it('a large redrive waits for a person; the assistant cannot approve it; a person can', async () => {
    const source = await newSource(fx.sources.orders);
    await db().source.update({ where: { id: source.id }, data: { approvalThreshold: 2 } });
    const ids = await letters(source, 3);
    const client = await connect(assistant.lead!);
    const preview = (await call(client, 'preview_redrive', { selection: { source: source.name } })).structuredContent as {
      count: number;
      needsApproval: boolean;
    };
    expect(preview).toMatchObject({ count: 3, needsApproval: true });
    const started = await call(client, 'start_redrive', { selection: { source: source.name }, ratePerSecond: 5, reason: 'gift field accepted since v2' });
    expect(started.isError, text(started)).toBeFalsy();
    const task = started.structuredContent as { id: string; status: string };
    expect(task.status).toBe('pending_approval');

    // The approval path refuses an assistant's token, whoever's it is (here the admin's).
    const approve = (token: string) =>
      approveRoute.POST(
        new Request(`http://127.0.0.1/api/v1/redrives/${task.id}/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: '{}',
        }),
        { params: Promise.resolve({ id: task.id }) },
      );
    const refused = await approve(assistant.admin!);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/an assistant never approves/);
    expect((await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).status).toBe('pending_approval');

    const progress = (await call(client, 'get_redrive', { id: task.id })).structuredContent as {
      status: string;
      counts: { total: number };
      history: { action: string; actorVia: string | null }[];
    };
    expect(progress.status).toBe('pending_approval');
    expect(progress.counts.total).toBe(3);
    expect(progress.history[0]).toMatchObject({ action: 'redrive.start', actorVia: 'assistant' });

    expect((await approve(fx.users[ACTING.admin]!.token)).status).toBe(200);
    expect((await db().redriveTask.findUniqueOrThrow({ where: { id: task.id } })).status).not.toBe('pending_approval');
    expect(ids).toHaveLength(3);
  });

  it('every action is on the audit trail as the user "via assistant", and the chain verifies', async () => {
    const support = fx.users[ACTING.support]!;
    const client = await connect(assistant.support!);
    const [one] = await letters(fx.sources.orders, 1);
    const clusterIds = await letters(fx.sources.orders, 2);
    const source = await newSource(fx.sources.orders);
    const [redriven] = await letters(source, 1);
    const from = await db().auditEvent.count();
    expect((await call(client, 'archive_dead_letter', { id: one, reason: 'test order from staging' })).isError).toBeFalsy();
    expect((await call(client, 'archive_cluster', { id: await clusterOf(clusterIds[0]!), reason: 'retired producer' })).isError).toBeFalsy();
    const started = await call(client, 'start_redrive', { selection: { ids: [redriven] }, reason: 'fixed in 2.4.1' });
    expect((started.structuredContent as { status: string }).status).toBe('queued');

    const events = await db().auditEvent.findMany({ where: { actorId: support.id }, orderBy: { id: 'asc' }, skip: 0 });
    const mine = events.slice(-3);
    expect(mine.map((e) => [e.action, e.actorEmail, e.actorVia, e.reason])).toEqual([
      ['deadletter.archive', support.email, 'assistant', 'test order from staging'],
      ['cluster.archive', support.email, 'assistant', 'retired producer'],
      ['redrive.start', support.email, 'assistant', 'fixed in 2.4.1'],
    ]);
    expect(await db().auditEvent.count()).toBe(from + 3);
    // What the trail's pages and exports show.
    expect((await auditEventViews(mine)).map((v) => v.actorVia)).toEqual(['assistant', 'assistant', 'assistant']);
    const csv = await exportAuditEvents(principal(fx.users[ACTING.auditor]!), {}, 'csv');
    const [header, ...rows] = parseCsvRows(await new Response(csv.body).text());
    const col = (name: string) => header!.indexOf(name);
    const exported = rows.filter((r) => mine.some((e) => e.id.toString() === r[col('id')]));
    expect(exported.map((r) => [r[col('actorEmail')], r[col('actorVia')]])).toEqual(mine.map(() => [support.email, 'assistant']));
    // A person's own event says nothing of an assistant, and the chain holds both kinds.
    await revealPayload(principal(support), one!, 'look', 'page');
    expect((await db().auditEvent.findFirstOrThrow({ where: { action: 'payload.reveal', actorId: support.id }, orderBy: { id: 'desc' } })).actorVia).toBeNull();
    expect((await verifyChain()).ok).toBe(true);
  });

  it('the admin setting is audited with before and after', async () => {
    await setAssistantRoles(SYSTEM, { roles: ['lead', 'support'] });
    await setAssistantRoles(SYSTEM, { roles: [...ROLES] });
    const [first, second] = await db().auditEvent.findMany({ where: { action: 'assistant.roles' }, orderBy: { id: 'desc' }, take: 2 });
    expect(second).toMatchObject({ before: { roles: [...ROLES] }, after: { roles: ['support', 'lead'] } });
    expect(first).toMatchObject({ before: { roles: ['support', 'lead'] }, after: { roles: [...ROLES] } });
  });
});

describe('stdio, through the CLI', () => {
  it("serves the same tools to a local client, as the token's person", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', 'mcp', '--token', 'env:TRIAGE_ASSISTANT_TOKEN'],
      env: { ...(process.env as Record<string, string>), TRIAGE_ASSISTANT_TOKEN: assistant.support! },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'triage-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    expect((await client.listTools()).tools).toHaveLength(ASSISTANT_TOOLS.length);
    const explained = (await client.callTool({ name: 'explain_alarm', arguments: { source: 'orders' } })) as ToolAnswer;
    expect(explained.isError).toBeFalsy();
    expect((explained.structuredContent as { source: { name: string } }).source.name).toBe('orders');
    // Another team's source does not exist for support@ (commerce).
    const other = (await client.callTool({ name: 'explain_alarm', arguments: { source: 'payments' } })) as ToolAnswer;
    expect(errorOf(other).status).toBe(404);
  });

  it('refuses a token on the command line', () => {
    const r = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/triage-cli.ts', 'mcp', '--token', assistant.support!], {
      encoding: 'utf8',
      env: process.env,
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--token would put a secret on the command line/);
  });
});
