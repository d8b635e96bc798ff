// The trail as an auditor and a lead read it: filters, keyset paging, team scope, masked details,
// the redrive history of one task, and the streamed, audited export (CSV and NDJSON).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '@/lib/auth';
import { append, SYSTEM_ACTOR, type AuditInput } from '@/lib/audit';
import { exportAuditEvents, type AuditExportFormat } from '@/lib/audit-trail/export';
import { auditFilterFromSearch, type AuditFilter } from '@/lib/audit-trail/filter';
import { getAuditEvent, listAuditActions, listAuditEvents } from '@/lib/audit-trail/list-events';
import { auditEventViews } from '@/lib/audit-trail/present';
import { getRedriveHistory } from '@/lib/audit-trail/redrive-history';
import { closeDb, db } from '@/lib/db';
import { AppError } from '@/lib/errors';
import { parseCsvRows } from '../support/csv';
import { resetDatabase } from '../support/db';
import { principal, seedFixtures, type Fixtures } from '../security/fixtures';

let fx: Fixtures;
let auditor: Actor;
let lead: Actor;
let financeLead: Actor;
let admin: Actor;
const TASK = '6f1c3b7e-1d2a-4c5b-9e8f-0a1b2c3d4e5f';
const OTHER_TASK = '0b9e8d7c-6b5a-4f3e-8d2c-1b0a9f8e7d6c';
let marks: { beforeRedrive: Date; afterRedrive: Date };

async function record(input: Omit<AuditInput, 'actor'> & { actor?: AuditInput['actor'] }) {
  return db().$transaction((tx) => append(tx, { actor: SYSTEM_ACTOR, ...input }));
}

const redrive = (action: string, by: Actor, extra: Partial<AuditInput> = {}) =>
  record({
    actor: { userId: by.userId, email: by.email, role: by.role },
    action,
    targetType: 'redrive_task',
    targetId: TASK,
    teamId: fx.teams.commerce,
    sourceId: fx.sources.orders.id,
    ...extra,
  });

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body).text();
}

async function exportText(actor: Actor, filter: AuditFilter, format: AuditExportFormat) {
  const out = await exportAuditEvents(actor, filter, format);
  return { ...out, text: await readAll(out.body) };
}

beforeAll(async () => {
  await resetDatabase();
  fx = await seedFixtures();
  auditor = principal(fx.users['auditor@triage.local']!);
  lead = principal(fx.users['lead@triage.local']!);
  financeLead = principal(fx.users['finance-lead@triage.local']!);
  admin = principal(fx.users['admin@triage.local']!);
  const lastSeed = await db().auditEvent.findFirstOrThrow({ orderBy: { id: 'desc' } });
  marks = { beforeRedrive: new Date(lastSeed.at.getTime() + 1), afterRedrive: new Date(0) };
  await new Promise((r) => setTimeout(r, 5)); // distinct milliseconds around the redrive events
  await redrive('redrive.start', lead, {
    reason: 'handler v2 deployed; customer bob@shop.example asked',
    selection: { cluster: 'c-1' },
    count: 120,
    after: { ratePerSecond: 10 },
  });
  await redrive('redrive.approve', financeLead, { reason: 'looks safe' });
  await redrive('redrive.pause', lead, { reason: '=HYPERLINK("http://evil.example","x")' });
  await redrive('redrive.resume', lead, { reason: 'line one\r\nline two, "quoted"' });
  const finish = await record({
    action: 'redrive.finish',
    targetType: 'redrive_task',
    targetId: TASK,
    teamId: fx.teams.commerce,
    sourceId: fx.sources.orders.id,
    result: 'completed: 118 acknowledged, 2 dead again',
  });
  const last = await db().auditEvent.findUniqueOrThrow({ where: { id: finish.id } });
  marks.afterRedrive = new Date(last.at.getTime() + 1);
  await new Promise((r) => setTimeout(r, 5));
  await record({ action: 'redrive.start', targetType: 'redrive_task', targetId: OTHER_TASK, teamId: fx.teams.finance, sourceId: fx.sources.payments.id });
  await record({
    action: 'deadletter.archive',
    targetType: 'dead_letter',
    targetId: '42',
    teamId: fx.teams.finance,
    sourceId: fx.sources.payments.id,
    before: { customer: { email: 'carol@bank.example', iban: 'DE89 3704 0044 0532 0130 00' } },
    after: { card: '4111 1111 1111 1111' },
  });
});
afterAll(closeDb);

describe('filters', () => {
  it('narrows by target, and by an action prefix', async () => {
    const task = await listAuditEvents(auditor, { filter: { targetType: 'redrive_task', targetId: TASK } });
    expect(task.map((e) => e.action)).toEqual(['redrive.finish', 'redrive.resume', 'redrive.pause', 'redrive.approve', 'redrive.start']);
    const prefix = await listAuditEvents(auditor, { filter: { action: 'redrive.' } });
    expect(prefix).toHaveLength(6);
    expect(await listAuditEvents(auditor, { filter: { action: 'redrive.*' } })).toHaveLength(6);
    expect(await listAuditEvents(auditor, { filter: { action: 'redrive' } })).toHaveLength(0);
  });

  it('narrows by actor e-mail or id, including system actors', async () => {
    const byLead = await listAuditEvents(auditor, { filter: { actor: 'LEAD@triage.local' } });
    expect(byLead.map((e) => e.action)).toEqual(['redrive.resume', 'redrive.pause', 'redrive.start']);
    expect(await listAuditEvents(auditor, { filter: { actor: lead.userId } })).toHaveLength(3);
    const seedEvents = await listAuditEvents(auditor, { filter: { actor: 'seed' }, limit: 1000 });
    expect(seedEvents.length).toBeGreaterThan(0);
    expect(seedEvents.every((e) => e.actorEmail === 'seed')).toBe(true);
  });

  it('narrows by source name or id, and an unknown source matches nothing', async () => {
    const payments = await listAuditEvents(auditor, { filter: { source: 'payments' } });
    // The seed creates the payments source and then its demo redrive rule.
    expect(payments.map((e) => e.action)).toEqual(['deadletter.archive', 'redrive.start', 'redrive_rule.create', 'source.create']);
    expect(await listAuditEvents(auditor, { filter: { source: fx.sources.orders.id, action: 'redrive.' } })).toHaveLength(5);
    expect(await listAuditEvents(auditor, { filter: { source: 'no-such-source' } })).toHaveLength(0);
  });

  it('narrows by time: from ≤ at < to', async () => {
    const window = await listAuditEvents(auditor, { filter: { from: marks.beforeRedrive, to: marks.afterRedrive } });
    expect(window.map((e) => e.targetId)).toEqual(Array(5).fill(TASK));
  });

  it('reads filters from a query string, UTC when no zone is given, and names a bad one', () => {
    expect(auditFilterFromSearch(new URLSearchParams('from=2026-03-01T10:00&to=2026-03-02&actor=&targetType=redrive_task'))).toEqual({
      from: new Date('2026-03-01T10:00:00Z'),
      to: new Date('2026-03-02T00:00:00Z'),
      targetType: 'redrive_task',
    });
    expect(() => auditFilterFromSearch(new URLSearchParams('from=yesterday'))).toThrow(/not a date/);
  });

  it('pages by keyset, newest first, without gaps or repeats', async () => {
    const all = await listAuditEvents(auditor, { limit: 1000 });
    const seen: bigint[] = [];
    let before: bigint | undefined;
    for (;;) {
      const page = await listAuditEvents(auditor, { before, limit: 4 });
      seen.push(...page.map((e) => e.id));
      if (page.length < 4) break;
      before = page[page.length - 1]!.id;
    }
    expect(seen).toEqual(all.map((e) => e.id));
  });

  it('suggests every action name in the trail', async () => {
    const actions = await listAuditActions();
    expect(actions).toEqual([...actions].sort());
    expect(actions).toEqual(expect.arrayContaining(['redrive.start', 'redrive.finish', 'deadletter.archive', 'user.create', 'token.create']));
  });
});

describe('team scope', () => {
  it("shows a lead only their team's events, and another team's event is 404", async () => {
    const forLead = await listAuditEvents(lead, { limit: 1000 });
    expect(forLead.length).toBeGreaterThan(0);
    expect(forLead.every((e) => e.teamId === fx.teams.commerce)).toBe(true);
    const financeEvent = await db().auditEvent.findFirstOrThrow({ where: { action: 'deadletter.archive' } });
    await expect(getAuditEvent(lead, financeEvent.id)).rejects.toMatchObject({ status: 404 });
    expect((await getAuditEvent(financeLead, financeEvent.id)).id).toBe(financeEvent.id);
    expect((await getAuditEvent(auditor, financeEvent.id)).id).toBe(financeEvent.id);
  });

  it('refuses the trail to support', async () => {
    await expect(listAuditEvents(principal(fx.users['support@triage.local']!))).rejects.toBeInstanceOf(AppError);
  });
});

describe('masked details', () => {
  it('masks e-mails, IBANs and cards in details for every role: no reveal covers the trail', async () => {
    const e = await db().auditEvent.findFirstOrThrow({ where: { action: 'deadletter.archive' } });
    const [view] = await auditEventViews([e]);
    expect(view).toMatchObject({
      before: { customer: { email: 'c****@bank.example', iban: 'DE** **** **** **** **30 00' } },
      after: { card: '**** **** **** 1111' },
    });
    expect(JSON.stringify(view)).not.toContain('carol@bank.example');
  });
});

describe('redrive history', () => {
  it('gives one task its events in order, with the task when it exists and is visible', async () => {
    const h = await getRedriveHistory(auditor, TASK);
    expect(h.task).toBeNull();
    expect(h.events.map((e) => [e.action, e.actorEmail])).toEqual([
      ['redrive.start', 'lead@triage.local'],
      ['redrive.approve', 'finance-lead@triage.local'],
      ['redrive.pause', 'lead@triage.local'],
      ['redrive.resume', 'lead@triage.local'],
      ['redrive.finish', 'system'],
    ]);
    const task = await db().redriveTask.create({
      data: { sourceId: fx.sources.payments.id, selection: { ids: ['1'] }, createdById: financeLead.userId, status: 'completed', total: 1 },
    });
    expect((await getRedriveHistory(auditor, task.id)).task).toMatchObject({ id: task.id, source: { name: 'payments' } });
    expect((await getRedriveHistory(auditor, task.id)).createdBy).toBe('finance-lead@triage.local');
    expect((await getRedriveHistory(lead, task.id)).task).toBeNull();
  });
});

describe('export', () => {
  const taskFilter: AuditFilter = { targetType: 'redrive_task', targetId: TASK };

  it('exports CSV that matches the page, defuses formulas and keeps line breaks inside cells', async () => {
    const page = await auditEventViews(await listAuditEvents(auditor, { filter: taskFilter }));
    const out = await exportText(auditor, taskFilter, 'csv');
    expect(out.contentType).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = parseCsvRows(out.text);
    expect(header!.slice(0, 5)).toEqual(['id', 'at', 'actorEmail', 'actorRole', 'action']);
    expect(rows.map((r) => r[0])).toEqual(page.map((e) => e.id));
    const col = (name: string) => header!.indexOf(name);
    const pause = rows.find((r) => r[col('action')] === 'redrive.pause')!;
    expect(pause[col('reason')]).toBe(`'=HYPERLINK("http://evil.example","x")`);
    const resume = rows.find((r) => r[col('action')] === 'redrive.resume')!;
    expect(resume[col('reason')]).toBe('line one\r\nline two, "quoted"');
    const start = rows.find((r) => r[col('action')] === 'redrive.start')!;
    expect(start[col('reason')]).toBe('handler v2 deployed; customer b**@shop.example asked');
    expect(JSON.parse(start[col('selection')]!)).toEqual({ cluster: 'c-1' });
    expect(start[col('count')]).toBe('120');
  });

  it('exports NDJSON with the same events, masked for a lead too (no reveal covers the trail)', async () => {
    const out = await exportText(lead, taskFilter, 'ndjson');
    const lines = out.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; reason: string | null });
    const page = await listAuditEvents(lead, { filter: taskFilter });
    expect(lines.map((l) => l.id)).toEqual(page.map((e) => e.id.toString()));
    expect(lines.find((l) => l.reason?.startsWith('handler'))!.reason).toBe('handler v2 deployed; customer b**@shop.example asked');
  });

  it('is audited with its filter, before the first byte, and leaves its own event out', async () => {
    const before = await db().auditEvent.count();
    const out = await exportAuditEvents(auditor, { ...taskFilter, from: marks.beforeRedrive }, 'ndjson');
    const event = await db().auditEvent.findUniqueOrThrow({ where: { id: out.eventId } });
    expect(await db().auditEvent.count()).toBe(before + 1);
    expect(event).toMatchObject({
      action: 'audit.export',
      actorEmail: 'auditor@triage.local',
      teamId: null,
      selection: { format: 'ndjson', filter: { targetType: 'redrive_task', targetId: TASK, from: marks.beforeRedrive.toISOString() } },
    });
    const text = await readAll(out.body);
    expect(text).not.toContain(`"id":"${out.eventId}"`);
    const leadExport = await exportAuditEvents(lead, {}, 'csv');
    await readAll(leadExport.body);
    expect(await db().auditEvent.findUniqueOrThrow({ where: { id: leadExport.eventId } })).toMatchObject({ teamId: fx.teams.commerce });
  });

  it('streams past one batch, newest first, every event once', async () => {
    await db().$transaction(
      async (tx) => {
        for (let i = 0; i < 1_050; i++) await append(tx, { actor: SYSTEM_ACTOR, action: 'bulk.event', targetId: String(i) });
      },
      { timeout: 120_000 },
    );
    const out = await exportText(admin, { action: 'bulk.event' }, 'ndjson');
    const ids = out.text
      .trimEnd()
      .split('\n')
      .map((l) => BigInt((JSON.parse(l) as { id: string }).id));
    expect(ids).toHaveLength(1_050);
    expect(new Set(ids).size).toBe(1_050);
    expect(ids.every((id, i) => i === 0 || id < ids[i - 1]!)).toBe(true);
  });
});
