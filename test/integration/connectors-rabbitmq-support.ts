// Helpers for the RabbitMQ connector tests, on the real broker at 127.0.0.1:5672 (guest/guest): a
// work queue whose dead-letter exchange routes into a DLQ (classic, or quorum with a delivery limit),
// names unique per run and deleted afterwards; a real amqplib consumer of the work queue; a source
// for the DLQ; the connectors worker as a child process.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import type { z } from 'zod';
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { afterEach, beforeAll, expect } from 'vitest';
import type { ConnectorHealth, DeadLetter } from '@/generated/prisma/client';
import { SYSTEM, type Principal } from '@/lib/auth';
import { startRedrive, type StartRedriveInput } from '@/lib/redrive';
import { createTeam } from '@/lib/admin/teams';
import { createSource, type sourceInput } from '@/lib/sources/create-source';
import { startConnectorSupervisor, type ConnectorSupervisor } from '@/lib/connectors/supervisor';
import { db, pg } from '@/lib/db';
import type { OutgoingRedrive, RedriveDestination } from '@/lib/redrive/destinations';
import type { RedriveSupervisor } from '@/lib/redrive/supervisor';
import { freshDatabase } from '../support/lifecycle';
import { killWorkerChildren, spawnWorkerChild, type WorkerChild } from '../support/worker-child';

export const AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672/%2F';

export interface Topology {
  run: string;
  exchange: string;
  routingKey: string;
  work: string;
  dlx: string;
  dlq: string;
}

let connection: ChannelModel | null = null;

export async function admin(): Promise<ChannelModel> {
  connection ??= await amqp.connect(AMQP_URL);
  connection.on('error', () => {});
  connection.on('close', () => (connection = null));
  return connection;
}

const created: Topology[] = [];

/** A direct exchange → work queue (dead-lettering into dlx → dlq). Quorum: nacks count towards x-delivery-limit. */
export async function topology(opts: { quorum?: { deliveryLimit: number } } = {}): Promise<Topology> {
  const run = `triage-test.${Date.now().toString(36)}.${randomBytes(3).toString('hex')}`;
  const t: Topology = { run, exchange: `${run}.orders`, routingKey: 'order.created', work: `${run}.work`, dlx: `${run}.dlx`, dlq: `${run}.dlq` };
  const ch = await (await admin()).createChannel();
  await ch.assertExchange(t.exchange, 'direct', { durable: false, autoDelete: false });
  await ch.assertExchange(t.dlx, 'fanout', { durable: false });
  await ch.assertQueue(t.dlq, { durable: true });
  await ch.bindQueue(t.dlq, t.dlx, '');
  const args: Record<string, unknown> = { 'x-dead-letter-exchange': t.dlx };
  if (opts.quorum) Object.assign(args, { 'x-queue-type': 'quorum', 'x-delivery-limit': opts.quorum.deliveryLimit });
  await ch.assertQueue(t.work, { durable: true, arguments: args });
  await ch.bindQueue(t.work, t.exchange, t.routingKey);
  await ch.close();
  created.push(t);
  return t;
}

export async function deleteTopologies(): Promise<void> {
  const conn = await admin().catch(() => null);
  if (!conn) return;
  for (const t of created.splice(0)) {
    const ch = await conn.createChannel();
    ch.on('error', () => {});
    for (const q of [t.work, t.dlq]) await ch.deleteQueue(q).catch(() => undefined);
    for (const x of [t.exchange, t.dlx]) await ch.deleteExchange(x).catch(() => undefined);
    await ch.close().catch(() => undefined);
  }
  await conn.close().catch(() => undefined);
  connection = null;
}

export async function depth(queue: string): Promise<number> {
  const ch = await (await admin()).createChannel();
  try {
    return (await ch.checkQueue(queue)).messageCount;
  } finally {
    await ch.close().catch(() => undefined);
  }
}

/** Publish through a confirm channel (waits for every confirm). */
export async function publish(exchange: string, routingKey: string, messages: { content: Buffer; options?: amqp.Options.Publish }[]): Promise<void> {
  const ch = await (await admin()).createConfirmChannel();
  for (const m of messages) {
    if (!ch.publish(exchange, routingKey, m.content, { persistent: true, ...m.options })) await new Promise((r) => ch.once('drain', r));
  }
  await ch.waitForConfirms();
  await ch.close();
}

export interface WorkConsumer {
  channel: Channel;
  close(): Promise<void>;
}

/** A real consumer of the work queue: `decide` says ack, reject (no requeue), requeue (nack), or spring (republish to the DLX with Spring's headers, then ack). */
export async function workConsumer(
  t: Topology,
  decide: (m: ConsumeMessage) => 'ack' | 'reject' | 'requeue' | 'spring',
  opts: { prefetch?: number } = {},
): Promise<WorkConsumer> {
  const conn = await amqp.connect(AMQP_URL);
  conn.on('error', () => {});
  const ch = await conn.createChannel();
  await ch.prefetch(opts.prefetch ?? 200);
  await ch.consume(t.work, (m) => {
    if (!m) return;
    const d = decide(m);
    if (d === 'ack') ch.ack(m);
    else if (d === 'reject') ch.nack(m, false, false);
    else if (d === 'requeue') ch.nack(m, false, true);
    else {
      // Spring AMQP's RepublishMessageRecoverer: the failed message goes to the error exchange with the
      // exception in headers, the original is acknowledged.
      const headers = {
        ...m.properties.headers,
        'x-exception-message': `Order ${String(m.properties.messageId)} rejected: unknown field "giftWrap"`,
        'x-exception-stacktrace': `com.acme.orders.UnknownFieldException: Order ${String(m.properties.messageId)} rejected: unknown field "giftWrap"\n\tat com.acme.orders.OrderHandler.handle(OrderHandler.java:42)\n\tat org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer.doInvokeListener(AbstractMessageListenerContainer.java:1580)`,
        'x-original-exchange': m.fields.exchange,
        'x-original-routingKey': m.fields.routingKey,
      };
      ch.publish(t.dlx, m.fields.routingKey, m.content, { ...m.properties, headers });
      ch.ack(m);
    }
  });
  return {
    channel: ch,
    close: async () => {
      await conn.close().catch(() => undefined);
    },
  };
}

/** What a suite's connectorSource takes beyond its defaults: connection settings laid over them, and the broker's own extras. */
export type ConnectorSourceExtra<More = object> = { connection?: Record<string, unknown> } & More;

export async function connectorSource(t: Topology, name: string, extra: ConnectorSourceExtra<{ url?: string }> = {}) {
  return commerceConnectorSource({ name, kind: 'rabbitmq', connection: { queue: t.dlq, ...extra.connection }, secret: { url: extra.url ?? AMQP_URL } });
}

/** A connector source on `t`'s DLQ whose import starts now, under a supervisor of the suite's `running` (stopped after the test). */
export async function importingSource<C extends { close(): Promise<void> }>(running: Running<C>, t: Topology, name: string) {
  const source = await connectorSource(t, name);
  running.connectors = await startConnectorSupervisor({ only: [source.id], discoveryMs: 500 });
  return source;
}

export async function waitFor<T>(what: string, probe: () => Promise<T | false | null | undefined>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** workers/connectors.ts as a child process, on the test database (or `extraEnv`'s); resolves `ready` when it logs it. */
export function spawnConnectors(extraEnv: Record<string, string> = {}): WorkerChild {
  return spawnWorkerChild('workers/connectors.ts', { CONNECTOR_DISCOVERY_MS: '500', ...extraEnv });
}

/** Close every broker connection whose name starts with `prefix` (the connector names its own). */
export function closeConnections(prefix: string): number {
  const out = execFileSync('rabbitmqctl', ['-q', 'list_connections', 'pid', 'client_properties'], { encoding: 'utf8', timeout: 30_000 });
  let n = 0;
  for (const line of out.split('\n')) {
    if (!line.includes(`"connection_name","${prefix}`)) continue;
    const pid = line.split('\t')[0]!.trim();
    execFileSync('rabbitmqctl', ['-q', 'close_connection', pid, 'closed by the test'], { timeout: 30_000 });
    n++;
  }
  return n;
}

// ---- shared by every connector suite (RabbitMQ, NATS, SQS, Azure, BullMQ, Sidekiq) --------------

/**
 * A connector source of the commerce team (made on first use) whose redrives need no approval: the
 * tests' redrives are large, and approvals are not what they are about.
 */
export async function commerceConnectorSource(input: Omit<z.input<typeof sourceInput>, 'team'>) {
  await createTeam(SYSTEM, { name: 'commerce' }).catch(() => undefined);
  const s = await createSource(SYSTEM, { ...input, team: 'commerce' });
  await db().source.update({ where: { id: s.id }, data: { approvalThreshold: 1_000_000 } });
  return s;
}

/** What a connector test starts and the suite stops after each test: the connectors, the redrive supervisor, a broker consumer. */
export interface Running<C extends { close(): Promise<void> }> {
  connectors?: ConnectorSupervisor;
  redrives?: RedriveSupervisor;
  consumer?: C;
}

/**
 * A connector suite's hooks: a reset database before each test; after it, what the test left in
 * `running` stopped (consumer, connectors, redrives), then `afterEachTest`; pools closed at the end.
 */
export function connectorTestLifecycle<C extends { close(): Promise<void> }>(afterEachTest: () => Promise<void> = async () => {}): Running<C> {
  const running: Running<C> = {};
  connectorHooks(running, afterEachTest);
  return running;
}

/**
 * connectorTestLifecycle on a broker the suite runs itself (an emulator in its own process): `start`
 * before the first test, the server in `running.server`, stopped after the last test.
 */
export function emulatorTestLifecycle<S extends { stop(): Promise<void> }, C extends { close(): Promise<void> }>(
  start: () => Promise<S>,
  afterEachTest: () => Promise<void> = async () => {},
): Running<C> & { server: S } {
  const running = {} as Running<C> & { server: S };
  beforeAll(async () => {
    running.server = await start();
  });
  connectorHooks(running, afterEachTest, async () => {
    await running.server?.stop();
  });
  return running;
}

/**
 * Whether a test may restart a server the machine's other test runs share: only in CI, or when
 * asked for by `variable` set to 1.
 */
export const restartAllowed = (variable: string): boolean => Boolean(process.env.CI) || process.env[variable] === '1';

/** connectorTestLifecycle of the fault suites: after each test, the connectors children killed, then `cleanUp` (the broker's names). */
export function faultTestLifecycle(cleanUp: () => Promise<void>): Running<{ close(): Promise<void> }> {
  return connectorTestLifecycle(async () => {
    await killWorkerChildren();
    await cleanUp();
  });
}

function connectorHooks<C extends { close(): Promise<void> }>(running: Running<C>, afterEachTest: () => Promise<void>, stopServer?: () => Promise<void>): void {
  freshDatabase({ close: stopServer });
  afterEach(async () => {
    await running.consumer?.close();
    await running.connectors?.stop();
    await running.redrives?.stop();
    running.consumer = running.connectors = running.redrives = undefined;
    await afterEachTest();
  });
}

/**
 * startRedrive with the task's circuit breaker out of the way: the connector tests make messages
 * come back dead on purpose, and are about the connector, not the breaker.
 */
export async function startRedriveNoBreaker(actor: Principal, input: StartRedriveInput) {
  const task = await startRedrive(actor, input);
  await db().redriveTask.update({ where: { id: task.id }, data: { breakerThreshold: 1 } });
  return task;
}

/**
 * The import of `total` through repeated SIGKILLs (killConnectorsWhileImporting), then one more
 * connectors child left running to finish it: how many children were killed mid-import.
 */
export async function importThroughKills(opts: Parameters<typeof killConnectorsWhileImporting>[0]): Promise<number> {
  const midImport = await killConnectorsWhileImporting(opts);
  await spawnConnectors().ready;
  return midImport;
}

/** The source's connector health after a clean import: `total` imported, no failure, no error. */
export async function expectCleanImport(sourceId: string, total: number): Promise<void> {
  const health = await db().connectorHealth.findUniqueOrThrow({ where: { sourceId } });
  expect(health).toMatchObject({ importedTotal: BigInt(total), consecutiveFailures: 0, lastError: null });
}

/** Waits until the source's connector health shows a success after its last error: resolves with that health. */
export async function waitForHealthyAgain(sourceId: string, timeoutMs = 15_000): Promise<ConnectorHealth> {
  return waitFor(
    'healthy again',
    async () => {
      const x = await db().connectorHealth.findUnique({ where: { sourceId } });
      return x && x.consecutiveFailures === 0 && x.lastErrorAt && x.lastSuccessAt! > x.lastErrorAt ? x : undefined;
    },
    timeoutMs,
  );
}

/** Waits until each source's connector health counts two failures in a row or more: resolves with their healths, in order. */
export async function waitForFailing<const T extends readonly string[]>(sourceIds: T, timeoutMs = 15_000): Promise<{ [K in keyof T]: ConnectorHealth }> {
  return waitFor(
    sourceIds.length === 2 ? 'both errors on the health' : 'the errors on the health',
    async () => {
      const healths = await Promise.all(sourceIds.map((sourceId) => db().connectorHealth.findUnique({ where: { sourceId } })));
      return healths.every((h) => (h?.consecutiveFailures ?? 0) >= 2) && (healths as { [K in keyof T]: ConnectorHealth });
    },
    timeoutMs,
  );
}

/** The connectors worker started, then left running for six seconds: it, and each source's connector health by source id. */
export async function connectorsAfterSixSeconds(): Promise<{ child: WorkerChild; health: Map<string, ConnectorHealth> }> {
  const child = spawnConnectors();
  await child.ready;
  await new Promise((r) => setTimeout(r, 6_000));
  return { child, health: new Map((await db().connectorHealth.findMany()).map((h) => [h.sourceId, h])) };
}

/** Exponential backoff from 1 s: a handful of attempts in 6 s for each source, not a busy loop. */
export function expectBackedOff(health: Map<string, ConnectorHealth>, sourceIds: string[]): void {
  for (const id of sourceIds) {
    expect(health.get(id)!.consecutiveFailures).toBeGreaterThanOrEqual(1);
    expect(health.get(id)!.consecutiveFailures).toBeLessThanOrEqual(5);
  }
}

/** Everything a connector's secret could leak into, as one text: the worker's log, the sources' rows, the healths, the audit trail, and `more`. */
export async function storedAndLogged(log: string, more: Record<string, unknown> = {}): Promise<string> {
  return JSON.stringify({
    ...more,
    log,
    sources: await pg()`SELECT connection, encode(connection_secret, 'escape') AS s FROM sources`,
    health: await pg()`SELECT last_error FROM connector_health`,
    audit: await pg()`SELECT after FROM audit_events`,
  });
}

/** Waits until the source holds exactly `n` dead letters (polled every 250 ms). */
export async function waitForDeadLetters(sourceId: string, n: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(`${n.toLocaleString('en')} dead letter${n === 1 ? '' : 's'}`, async () => (await imported(sourceId)) === n, timeoutMs, 250);
}

/** Waits until the source holds exactly `n` dead letters of `generation` (polled every 250 ms). */
export async function waitForGeneration(sourceId: string, generation: number, n: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    `${n.toLocaleString('en')} of generation ${generation}`,
    async () => (await db().deadLetter.count({ where: { sourceId, generation } })) === n,
    timeoutMs,
    250,
  );
}

/** The source's import pauses and resumes in its audit trail, oldest first, as [action, reason]. */
export async function importSwitches(sourceId: string): Promise<[string, string | null][]> {
  const events = await db().auditEvent.findMany({ where: { sourceId, action: { startsWith: 'source.import' } }, orderBy: { id: 'asc' } });
  return events.map((e): [string, string | null] => [e.action, e.reason]);
}

/** A redrive destination whose broker is down: a delivery fails as infrastructure, "unreachable"; then it closes. */
export async function expectUnreachable(destination: RedriveDestination, outgoing: OutgoingRedrive): Promise<void> {
  expect((await destination.deliver([outgoing], new AbortController().signal))[0]).toMatchObject({
    ok: false,
    failure: 'infrastructure',
    error: expect.stringMatching(/unreachable/),
  });
  await destination.close?.();
}

/** Exactly `total` dead letters of the source, one per message id, each with the bytes sent, each counted into a cluster once. */
export async function expectImportedOnce(sourceId: string, sent: Map<string, string>, total: number): Promise<void> {
  const [counts] = await pg()<{ rows: number; ids: number }[]>`
    SELECT count(*)::int AS rows, count(DISTINCT message_id)::int AS ids FROM dead_letters WHERE source_id = ${sourceId}::uuid`;
  expect(counts).toEqual({ rows: total, ids: total });
  const rows = await pg()<
    { message_id: string; payload_sha256: string }[]
  >`SELECT message_id, payload_sha256 FROM dead_letters WHERE source_id = ${sourceId}::uuid`;
  expect(rows.filter((r) => sent.get(r.message_id) !== r.payload_sha256).length).toBe(0);
  // Counted into clusters once each: a crash between commit and acknowledgement must not count a message twice.
  const [clustered] = await pg()<{ n: number }[]>`SELECT COALESCE(sum(count), 0)::int AS n FROM cluster_sources WHERE source_id = ${sourceId}::uuid`;
  expect(clustered!.n).toBe(total);
}

/**
 * Up to `kills` connectors children, each SIGKILLed while it imports (after its first commit, then
 * a random pause of up to `maxPauseMs`): how many were killed with the import still unfinished.
 */
export async function killConnectorsWhileImporting(opts: {
  kills: number;
  maxPauseMs: number;
  total: number;
  imported: () => Promise<number>;
}): Promise<number> {
  let midImport = 0;
  for (let kills = 0; kills < opts.kills; kills++) {
    const before = await opts.imported();
    if (before === opts.total) break;
    const child = spawnConnectors();
    await child.ready;
    await waitFor('the import under way', async () => (await opts.imported()) > before, 30_000, 20);
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * opts.maxPauseMs)));
    child.kill('SIGKILL');
    await child.exited;
    if ((await opts.imported()) < opts.total) midImport++;
  }
  return midImport;
}

/** A stored dead letter as the redrive hands it to a destination: its own headers are its origin too. */
export function outgoingOf(r: DeadLetter): OutgoingRedrive {
  const { id: deadLetterId, messageId, payload, contentType, redriveCount, enqueuedAt, orderingKey, idempotencyKey, correlationId } = r;
  const headers = r.headers as Record<string, unknown>;
  return {
    deadLetterId,
    messageId,
    payload: payload!,
    contentType,
    headers,
    origin: headers,
    redriveCount,
    enqueuedAt,
    orderingKey,
    idempotencyKey,
    correlationId,
  };
}

// The fault tests' load (connectors-rabbitmq-fault, connectors-rabbitmq-restart).
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
export const FAULT_N = 10_000;

/** FAULT_N messages dead-lettered by a real consumer's reject, waiting in the DLQ; returns their SHA-256 by id. */
export async function deadLettered(t: Topology): Promise<Map<string, string>> {
  const sent = new Map<string, string>();
  const messages = Array.from({ length: FAULT_N }, (_, i) => {
    const content = i % 101 === 0 ? Buffer.alloc(0) : randomBytes(16 + (i % 300));
    sent.set(`m-${i}`, sha(content));
    return { content, options: { messageId: `m-${i}` } };
  });
  const consumer = await workConsumer(t, () => 'reject', { prefetch: 1_000 });
  await publish(t.exchange, t.routingKey, messages);
  await waitFor('all dead-lettered', async () => (await depth(t.dlq)) === FAULT_N, 60_000, 200);
  await consumer.close();
  return sent;
}

export const imported = async (sourceId: string) => db().deadLetter.count({ where: { sourceId } });

/** The fault tests' start: a topology with FAULT_N messages dead-lettered, and a source of its DLQ named `<what>-<random>`. */
export async function deadLetteredSource(what: string, connection: Record<string, unknown>) {
  const t = await topology();
  const sent = await deadLettered(t);
  const name = `${what}-${randomBytes(3).toString('hex')}`;
  return { t, sent, name, source: await connectorSource(t, name, { connection }) };
}
