// Role × assistant tool, like role × route (route-matrix.test.ts): every MCP tool walked as every
// role through the served /api/mcp with the SDK's client and an assistant token of that role. Allowed
// exactly as PERMISSIONS says (an action leaves one audit event, as the user via assistant), refused
// with 403 otherwise (logged, nothing written); another team's object answers 404. A tool of
// lib/assistant/tools.ts without an entry in TOOLS (endpoints.ts) fails the suite.
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ASSISTANT_TOOLS } from '@/lib/assistant/tools';
import { ROLES, scopeFor, type Role } from '@/lib/auth';
import { db } from '@/lib/db';
import { log } from '@/lib/log';
import { answerText, callTool, serveAssistants, toolError, type ServedAssistants } from '../support/assistant';
import { TOOLS, type ToolEntry } from './endpoints';
import { ACTING } from './fixtures';
import { seededFixtures } from './lifecycle';

let served: ServedAssistants;
const fx = seededFixtures(() => served.close());

const allowed = (role: Role, e: ToolEntry) => scopeFor(role, e.permission) !== undefined;

beforeAll(async () => {
  served = await serveAssistants(ACTING);
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('the registry covers every assistant tool', () => {
  it('has an entry for every tool, with the permission the tool requires, and none for a tool that does not exist', () => {
    const tools = new Map(ASSISTANT_TOOLS.map((t) => [t.name, t.permission]));
    expect(
      ASSISTANT_TOOLS.filter((t) => !TOOLS.some((e) => e.name === t.name)).map((t) => t.name),
      'add these to TOOLS in test/security/endpoints.ts',
    ).toEqual([]);
    expect(TOOLS.filter((e) => !tools.has(e.name)).map((e) => e.name)).toEqual([]);
    for (const e of TOOLS) expect(tools.get(e.name), e.name).toBe(e.permission);
  });

  it('lists the same tools to every role', async () => {
    for (const role of ROLES) expect((await served.clients[role].listTools()).tools.map((t) => t.name).sort(), role).toEqual(TOOLS.map((e) => e.name).sort());
  });
});

describe.each(TOOLS.map((e) => [e.name, e] as const))('%s', (_name, e) => {
  it.each(ROLES.map((r) => [r, allowed(r, e) ? 'allowed' : 'refused with 403'] as const))('%s: %s', async (role) => {
    const as = fx.users[ACTING[role]]!;
    const args = await e.call(fx, as);
    const warn = vi.spyOn(log, 'warn');
    const before = await db().auditEvent.count();
    const answer = await callTool(served.clients[role], e.name, args);
    const written = await db().auditEvent.findMany({ where: { id: { gt: before } }, select: { actorId: true, actorVia: true } });
    if (allowed(role, e)) {
      expect(answer.isError, `${role} ${e.name}: ${answerText(answer).slice(0, 300)}`).toBeFalsy();
      expect(written, 'audit events written').toHaveLength(e.audits ?? 0);
      for (const w of written) expect(w).toEqual({ actorId: as.id, actorVia: 'assistant' });
    } else {
      expect(answer.isError, `${role} ${e.name}`).toBe(true);
      expect(toolError(answer).status).toBe(403);
      expect(written, 'a refused call writes nothing').toEqual([]);
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ userId: as.id, role }), 'permission denied');
    }
  });

  if (e.crossTeam) {
    const teamScoped = ROLES.filter((r) => scopeFor(r, e.permission) === 'team');
    it.each(teamScoped)("%s: another team's object answers 404", async (role) => {
      const as = fx.users[ACTING[role]]!;
      const args = await e.crossTeam!(fx, as);
      const before = await db().auditEvent.count();
      const answer = await callTool(served.clients[role], e.name, args);
      expect(answer.isError).toBe(true);
      expect(toolError(answer).status).toBe(404);
      expect(await db().auditEvent.count()).toBe(before);
    });
  }
});
