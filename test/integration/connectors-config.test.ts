// Setting up a connector source over the HTTP API as an admin would: the credentials go in once and
// never come back out (no API answer, no audit event, no log line carries them; the row holds only
// ciphertext), the connection can be changed and its credentials replaced, the import paused and
// resumed (audited), and "test connection" answers in words, never with a secret. The route
// handlers are called with personal API tokens, as a script would.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '@/lib/auth';
import { createIngestToken, createPersonalToken } from '@/lib/admin/tokens';
import { newToken } from '@/lib/auth/tokens';
import { connectorSourceOf } from '@/lib/connectors';
import { closeDb, db, pg } from '@/lib/db';
import { env } from '@/lib/env';
import { closeQueues } from '@/lib/queue';
import * as sourcesRoute from '@/app/api/v1/sources/route';
import * as ingestRoute from '@/app/api/v1/sources/[source]/dead-letters/route';
import * as sourceRoute from '@/app/api/v1/sources/[source]/route';
import * as testRoute from '@/app/api/v1/sources/[source]/connection-test/route';
import * as pauseRoute from '@/app/api/v1/sources/[source]/import/pause/route';
import * as resumeRoute from '@/app/api/v1/sources/[source]/import/resume/route';
import { resetDatabase } from '../support/db';
import { importSwitches } from './connectors-rabbitmq-support';
import { demoWorld } from './sla-fixtures';

// Distinctive, so a leak anywhere is found by a plain substring search.
const PASSWORD = 'Pa55-w0rd-never-shown-9f3e';
const URL_WITH_PASSWORD = `amqp://triage-user:${PASSWORD}@127.0.0.1:5672/`;
const NEW_PASSWORD = 'Repl4ced-secret-0c1d';

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

let adminToken: string;
let leadToken: string;
let supportToken: string;

async function call(handler: unknown, method: string, path: string, token: string, body?: unknown, params: Record<string, string> = {}) {
  const req = new Request(`http://127.0.0.1:3000${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await (handler as Handler)(req, { params: Promise.resolve(params) });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

const create = (body: unknown) => call(sourcesRoute.POST, 'POST', '/api/v1/sources', adminToken, body);
const getOne = (name: string, token = adminToken) => call(sourceRoute.GET, 'GET', `/api/v1/sources/${name}`, token, undefined, { source: name });

async function auditTextOf(sourceId: string): Promise<string> {
  const events = await db().auditEvent.findMany({ where: { sourceId }, orderBy: { id: 'asc' } });
  return JSON.stringify(events.map((e) => ({ action: e.action, before: e.before, after: e.after, reason: e.reason })));
}

describe('connector sources over the API', () => {
  beforeAll(async () => {
    await resetDatabase();
    await demoWorld();
    adminToken = (await createPersonalToken(SYSTEM, 'admin@triage.local')).token;
    leadToken = (await createPersonalToken(SYSTEM, 'lead@triage.local')).token;
    supportToken = (await createPersonalToken(SYSTEM, 'support@triage.local')).token;
  });
  afterAll(async () => {
    await closeQueues();
    await closeDb();
  });

  it('creates a RabbitMQ source whose credentials no answer, audit event or row shows', async () => {
    const created = await create({
      name: 'orders-rmq',
      team: 'commerce',
      kind: 'rabbitmq',
      connection: { queue: 'orders.dlq', managementUrl: 'http://127.0.0.1:15672', errorText: { messageHeader: 'x-error' } },
      secret: { url: URL_WITH_PASSWORD },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'orders-rmq', kind: 'rabbitmq' });
    expect(created.text).not.toContain(PASSWORD);

    const list = await call(sourcesRoute.GET, 'GET', '/api/v1/sources', adminToken);
    expect(list.status).toBe(200);
    const listed = (list.json.sources as Record<string, unknown>[]).find((s) => s.name === 'orders-rmq')!;
    expect(listed).toMatchObject({ kind: 'rabbitmq', connection: { queue: 'orders.dlq' }, credentialsSet: true, importPaused: false });
    expect(listed).not.toHaveProperty('connectionSecret');
    expect(list.text).not.toContain(PASSWORD);
    expect(list.text).not.toContain('triage-user:');

    const one = await getOne('orders-rmq');
    expect(one.status).toBe(200);
    expect(one.json.source).toMatchObject({
      name: 'orders-rmq',
      credentialsSet: true,
      connection: { queue: 'orders.dlq', managementUrl: 'http://127.0.0.1:15672', errorText: { messageHeader: 'x-error' } },
      connector: { health: null, errorText: { mapped: true, notice: null } },
    });
    expect(one.text).not.toContain(PASSWORD);

    // The audit event names the account and the broker, with the password redacted.
    const id = created.json.id as string;
    const audit = await auditTextOf(id);
    expect(audit).toContain('source.create');
    expect(audit).toContain('amqp://triage-user:***@127.0.0.1:5672/');
    expect(audit).not.toContain(PASSWORD);

    // At rest: ciphertext only, and the settings column holds no credential either.
    const [row] = await pg()<{ secret: Buffer; connection: unknown }[]>`SELECT connection_secret AS secret, connection FROM sources WHERE id = ${id}::uuid`;
    expect(row!.secret.length).toBeGreaterThan(28);
    expect(row!.secret.includes(Buffer.from(PASSWORD))).toBe(false);
    expect(row!.secret.includes(Buffer.from('amqp://'))).toBe(false);
    expect(JSON.stringify(row!.connection)).not.toContain(PASSWORD);
    // …which the connectors worker can open with the key.
    const stored = await db().source.findUniqueOrThrow({ where: { id } });
    expect(connectorSourceOf(stored).source.secret).toEqual({ url: URL_WITH_PASSWORD });
  });

  it('refuses bad connection settings with a reason that never echoes the secret', async () => {
    const noQueue = await create({ name: 'bad-rmq', team: 'commerce', kind: 'rabbitmq', connection: {}, secret: { url: URL_WITH_PASSWORD } });
    expect(noQueue.status).toBe(422);
    expect(noQueue.json.error.message).toMatch(/connection\.queue/);
    const badUrl = await create({ name: 'bad-rmq', team: 'commerce', kind: 'rabbitmq', connection: { queue: 'q' }, secret: { url: `http://x:${PASSWORD}@h` } });
    expect(badUrl.status).toBe(422);
    expect(badUrl.json.error.message).toMatch(/secret\.url: an amqp:\/\/ or amqps:\/\/ URL/);
    expect(badUrl.text).not.toContain(PASSWORD);
    const builtinWithConnection = await create({ name: 'bad-builtin', team: 'commerce', kind: 'builtin', connection: { queue: 'q' } });
    expect(builtinWithConnection.status).toBe(422);
    expect(await db().source.count({ where: { name: { startsWith: 'bad-' } } })).toBe(0);
  });

  it('changes the connection and replaces the credentials, audited and redacted; only admins may', async () => {
    const patch = (body: unknown, token = adminToken) => call(sourceRoute.PATCH, 'PATCH', '/api/v1/sources/orders-rmq', token, body, { source: 'orders-rmq' });
    expect((await patch({ connection: { queue: 'other.dlq' } }, leadToken)).status).toBe(403);

    const r = await patch({ connection: { queue: 'orders.dead', managementUrl: null }, secret: { url: `amqp://triage-user:${NEW_PASSWORD}@127.0.0.1:5672/` } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      changed: true,
      source: { connection: { queue: 'orders.dead', errorText: { messageHeader: 'x-error' } }, credentialsSet: true },
    });
    expect(r.json.source.connection).not.toHaveProperty('managementUrl');
    expect(r.text).not.toContain(NEW_PASSWORD);

    const source = await db().source.findUniqueOrThrow({ where: { name: 'orders-rmq' } });
    expect(connectorSourceOf(source).source.secret.url).toContain(NEW_PASSWORD);
    const events = await db().auditEvent.findMany({ where: { sourceId: source.id, action: 'source.connection.update' } });
    expect(events).toHaveLength(1);
    expect(events[0]!.before).toMatchObject({
      connection: { queue: 'orders.dlq', managementUrl: 'http://127.0.0.1:15672' },
      secret: { url: 'amqp://triage-user:***@127.0.0.1:5672/' },
    });
    expect(events[0]!.after).toMatchObject({
      connection: { queue: 'orders.dead', managementUrl: null },
      secret: { url: 'amqp://triage-user:***@127.0.0.1:5672/' },
    });
    const audit = await auditTextOf(source.id);
    expect(audit).not.toContain(PASSWORD);
    expect(audit).not.toContain(NEW_PASSWORD);

    // Settings only: the credentials are kept as they were.
    expect((await patch({ connection: { prefetch: 50 } })).status).toBe(200);
    const after = await db().source.findUniqueOrThrow({ where: { name: 'orders-rmq' } });
    expect(connectorSourceOf(after).source.secret.url).toContain(NEW_PASSWORD);
    // An invalid merge is refused whole.
    const bad = await patch({ connection: { prefetch: 0 } });
    expect(bad.status).toBe(422);
    expect((await db().source.findUniqueOrThrow({ where: { name: 'orders-rmq' } })).connection).toMatchObject({ prefetch: 50 });
    // Nothing that differs: no event.
    expect((await patch({ connection: { prefetch: 50 } })).json.changed).toBe(false);
  });

  it('pauses and resumes the import (a lead of the team), audited with the reason', async () => {
    const params = { source: 'orders-rmq' };
    expect((await call(pauseRoute.POST, 'POST', '/x', supportToken, {}, params)).status).toBe(403);
    const paused = await call(pauseRoute.POST, 'POST', '/x', leadToken, { reason: 'broker maintenance' }, params);
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ name: 'orders-rmq', importPaused: true, changed: true });
    expect((await getOne('orders-rmq')).json.source.importPaused).toBe(true);
    // Pausing again changes nothing and writes nothing.
    expect((await call(pauseRoute.POST, 'POST', '/x', leadToken, undefined, params)).json.changed).toBe(false);
    const resumed = await call(resumeRoute.POST, 'POST', '/x', leadToken, undefined, params);
    expect(resumed.json).toMatchObject({ importPaused: false, changed: true });
    const source = await db().source.findUniqueOrThrow({ where: { name: 'orders-rmq' } });
    expect(await importSwitches(source.id)).toEqual([
      ['source.import.pause', 'broker maintenance'],
      ['source.import.resume', null],
    ]);
    // A source that has no import cannot be paused.
    const builtin = await call(pauseRoute.POST, 'POST', '/x', leadToken, {}, { source: 'orders' });
    expect(builtin.status).toBe(422);
  });

  it('tests the connection: a broker that is not there is an answer in words, without the secret', async () => {
    const created = await create({
      name: 'nowhere-rmq',
      team: 'commerce',
      kind: 'rabbitmq',
      connection: { queue: 'q.dlq' },
      secret: { url: `amqp://u:${PASSWORD}@127.0.0.1:1/` },
    });
    expect(created.status).toBe(201);
    const r = await call(testRoute.POST, 'POST', '/x', leadToken, undefined, { source: 'nowhere-rmq' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: false, source: { name: 'nowhere-rmq', kind: 'rabbitmq' } });
    expect(r.json.error).toMatch(/\S/);
    expect(r.text).not.toContain(PASSWORD);
    const builtin = await call(testRoute.POST, 'POST', '/x', leadToken, undefined, { source: 'orders' });
    expect(builtin.status).toBe(422);
    expect(builtin.json.error.message).toMatch(/not a connector source/);
  });

  it('the connectors worker logs no secret while it fails to reach the broker', async () => {
    await create({
      name: 'refused-rmq',
      team: 'commerce',
      kind: 'rabbitmq',
      connection: { queue: 'q.dlq' },
      secret: { url: `amqp://nobody:${PASSWORD}@127.0.0.1:5672/` },
    });
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/connectors.ts'], {
      env: { ...process.env, DATABASE_URL: env().DATABASE_URL, TRIAGE_STATE_DIR: env().TRIAGE_STATE_DIR, LOG_LEVEL: 'debug', CONNECTOR_DISCOVERY_MS: '300' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    try {
      // Until each source's import has failed at least twice (the backoff starts at 1 s).
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const failing = await db().connectorHealth.count({ where: { consecutiveFailures: { gte: 2 } } });
        if (failing >= 2) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(await db().connectorHealth.count({ where: { consecutiveFailures: { gte: 2 } } })).toBeGreaterThanOrEqual(2);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    expect(output).toContain('connector import failed');
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain(NEW_PASSWORD);
    // Nor the health rows the pages show.
    const health = await db().connectorHealth.findMany();
    expect(JSON.stringify(health.map((h) => h.lastError))).not.toContain(PASSWORD);
  });
  it("takes no ingest token and no ingested dead letter for a connector source: where its redrives go comes from its broker's own facts", async () => {
    const created = await create({
      name: 'routed-rmq',
      team: 'commerce',
      kind: 'rabbitmq',
      connection: { queue: 'orders.dlq' },
      secret: { url: URL_WITH_PASSWORD },
    });
    expect(created.status).toBe(201);
    // A token for it is refused, saying why ...
    await expect(createIngestToken(SYSTEM, 'routed-rmq')).rejects.toMatchObject({ code: 'unprocessable' });
    // ... and one made before that rule (a row as the old code wrote it) ingests nothing: a forwarder
    // holding it could otherwise write x-death headers that send a support engineer's redrive to an
    // exchange of its choosing.
    const t = newToken('ingest');
    await db().apiToken.create({ data: { kind: 'ingest', tokenHash: t.hash, prefix: t.prefix, sourceId: created.json.id as string } });
    const forged = {
      deadLetters: [
        {
          messageId: 'forged-1',
          payload: '{"pay":"attacker"}',
          headers: { 'x-death': [{ queue: 'orders', reason: 'rejected', count: 1, exchange: 'billing', 'routing-keys': ['refund.all'] }] },
        },
      ],
    };
    const res = await ingestRoute.POST(
      new Request('http://127.0.0.1:3000/api/v1/sources/routed-rmq/dead-letters', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(forged),
      }),
      { params: Promise.resolve({ source: 'routed-rmq' }) },
    );
    expect(res.status).toBe(422);
    expect(await res.text()).toMatch(/connector/);
    expect(await db().deadLetter.count({ where: { sourceId: created.json.id as string } })).toBe(0);
  });
});
