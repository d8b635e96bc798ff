// Helpers for the redrive tests: teams, people and sources; parked dead letters of one cause; an
// HTTP receiver on 127.0.0.1 that checks the signature and records every delivery; a consumer on a
// built-in source (the broker runtime's own) that acknowledges or rejects; per-second send counts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { RedriveTask } from '@/generated/prisma/client';
import { PermanentError } from '@/lib/broker';
import { SYSTEM, type Actor } from '@/lib/auth';
import { createTeam } from '@/lib/admin/teams';
import { createUser } from '@/lib/admin/users';
import { createSource } from '@/lib/sources/create-source';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { db } from '@/lib/db';
import { QUEUES, producerQueue } from '@/lib/queue';
import { consume, type Consumer, type ReceivedMessage } from '@/lib/runtime';
import { REDRIVE_HEADERS, startRedrive, verifyRedriveSignature, type StartRedriveInput } from '@/lib/redrive';
import { waitFor } from './runtime-support';
import { spawnWorkerChild, type WorkerChild } from '../support/worker-child';

export const RECEIVER_SECRET = 'a-redrive-secret-for-tests-only';

export interface World {
  support: Actor;
  support2: Actor;
  lead: Actor;
  financeSupport: Actor;
  orders: { id: string; name: string; retentionSeconds: number };
  partner: { id: string; name: string; retentionSeconds: number };
}

/** A new user of `role` (in `team`, for a team's role) as the actor of a signed-in session. */
export async function person(email: string, role: Actor['role'], team?: string): Promise<Actor> {
  const u = await createUser(SYSTEM, { email, role, ...(team ? { team } : {}) });
  return { userId: u.id, email: u.email, role, teamId: u.teamId, via: 'session' };
}

// Each world gets fresh source names: the broker runtime caches a source's policy by name for a
// moment, and a queue's leftovers must not meet the next test's consumer.
let worlds = 0;

/** Team commerce (orders-N: built-in) and finance (partner-N: ingest, redriven to `partnerUrl`). */
export async function world(opts: { partnerUrl?: string; maxRedrives?: number; approvalThreshold?: number } = {}): Promise<World> {
  await createTeam(SYSTEM, { name: 'commerce' });
  await createTeam(SYSTEM, { name: 'finance' });
  const n = ++worlds;
  const orders = await createSource(SYSTEM, { name: `orders-${n}`, team: 'commerce', kind: 'builtin', maxRedrives: opts.maxRedrives ?? 2 });
  // Names repeat in every test file of the run, whose Redis prefix they share: a queue an earlier file
  // left messages in would hand them to this world's consumer.
  await producerQueue(QUEUES.source(orders.name)).obliterate({ force: true });
  const partner = await createSource(SYSTEM, { name: `partner-${n}`, team: 'finance', kind: 'ingest' });
  if (opts.approvalThreshold !== undefined) {
    await db().source.updateMany({ data: { approvalThreshold: opts.approvalThreshold } });
  }
  await db().source.update({ where: { id: partner.id }, data: { redriveUrl: opts.partnerUrl ?? 'http://127.0.0.1:9/none', redriveSecret: RECEIVER_SECRET } });
  return {
    support: await person('support@test.local', 'support', 'commerce'),
    support2: await person('support2@test.local', 'support', 'commerce'),
    lead: await person('lead@test.local', 'lead', 'commerce'),
    financeSupport: await person('finance-support@test.local', 'support', 'finance'),
    orders,
    partner,
  };
}

/** `n` dead letters of one cause (one cluster), message ids `${prefix}-<i>`, oldest first. */
export async function park(
  source: { id: string; retentionSeconds: number },
  n: number,
  opts: { prefix?: string; redriveCount?: number; errorMessage?: string; from?: number; deadAt?: Date } = {},
): Promise<string[]> {
  const ids: string[] = [];
  const t0 = Date.now() - 60_000;
  for (let start = 0; start < n; start += 2_000) {
    const batch: NewDeadLetter[] = [];
    for (let i = start; i < Math.min(n, start + 2_000); i++) {
      const k = (opts.from ?? 0) + i;
      batch.push({
        messageId: `${opts.prefix ?? 'm'}-${k}`,
        payload: new TextEncoder().encode(JSON.stringify({ order: k, gift: true })),
        contentType: 'application/json',
        headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
        reason: 'Rejected',
        errorType: 'SchemaError',
        errorMessage: opts.errorMessage ?? 'unknown field "gift" in order',
        redriveCount: opts.redriveCount ?? 0,
        generation: opts.redriveCount ?? 0,
        deadAt: opts.deadAt ?? new Date(t0 + k),
      });
    }
    ids.push(...(await recordDeadLetters(source, batch)).map((r) => r.id));
  }
  return ids;
}

/** Waits until the redrive task `id` is `done`: resolves with the task as it was then. */
export async function waitForTask(id: string, what: string, done: (task: RedriveTask) => boolean, timeoutMs = 60_000): Promise<RedriveTask> {
  try {
    return await waitFor(
      what,
      async () => {
        const task = await db().redriveTask.findUniqueOrThrow({ where: { id } });
        return done(task) && task;
      },
      timeoutMs,
      250,
    );
  } catch (e) {
    // What the task said when the wait gave up: its counters and its items' states, so that a
    // failure on a loaded machine says where it stood.
    const t = await db().redriveTask.findUniqueOrThrow({ where: { id } });
    const states = await db().redriveItem.groupBy({ by: ['state'], where: { taskId: id }, _count: true });
    const counters = { status: t.status, sent: t.sent, acknowledged: t.acknowledged, deadAgain: t.deadAgain, noDeathSeen: t.noDeathSeen, failed: t.failed };
    throw new Error(`${String(e)}: ${JSON.stringify({ ...counters, items: Object.fromEntries(states.map((s) => [s.state, s._count])) })}`);
  }
}

/** A world (its options as world()'s) with `n` dead letters of one cause parked on its orders source: the world and their ids. */
export async function worldWithParked(n: number, opts: Parameters<typeof world>[0] = {}): Promise<{ w: World; ids: string[] }> {
  const w = await world(opts);
  return { w, ids: await park(w.orders, n) };
}

/** The world's support person redrives its orders source (all of it, at 100 a second, unless `more` says otherwise). */
export function redriveOrders(w: World, more: Partial<StartRedriveInput> = {}) {
  return startRedrive(w.support, { selection: { source: w.orders.name }, ratePerSecond: 100, ...more });
}

export interface Delivery {
  messageId: string;
  deadLetterId: string;
  redriveCount: string;
  contentType: string;
  body: Buffer;
  signed: boolean;
  at: number;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** The status to answer with; 200 by default. */
  answer: (d: Delivery) => number;
  close(): Promise<void>;
}

export async function receiver(answer: Receiver['answer'] = () => 200): Promise<Receiver> {
  const r: Receiver = { url: '', deliveries: [], answer, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const d: Delivery = {
        messageId: String(req.headers[REDRIVE_HEADERS.messageId.toLowerCase()] ?? ''),
        deadLetterId: String(req.headers[REDRIVE_HEADERS.deadLetterId.toLowerCase()] ?? ''),
        redriveCount: String(req.headers[REDRIVE_HEADERS.redriveCount.toLowerCase()] ?? ''),
        contentType: String(req.headers['content-type'] ?? ''),
        body,
        signed: verifyRedriveSignature(RECEIVER_SECRET, body, req.headers[REDRIVE_HEADERS.signature.toLowerCase()] as string | undefined),
        at: Date.now(),
      };
      r.deliveries.push(d);
      res.writeHead(d.signed ? r.answer(d) : 401).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/redrive`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

export interface TestConsumer {
  received: ReceivedMessage[];
  /** 'ack' acknowledges; 'reject' throws a permanent error, so the message is dead-lettered again. */
  mode: 'ack' | 'reject';
  close(): Promise<void>;
}

/** The broker runtime's consumer on a built-in source, as the application would run it. */
export async function testConsumer(sourceName: string, mode: TestConsumer['mode'] = 'ack'): Promise<TestConsumer> {
  const c: TestConsumer = { received: [], mode, close: async () => {} };
  const consumer: Consumer = await consume(
    sourceName,
    async (m) => {
      c.received.push(m);
      if (c.mode === 'reject') throw new PermanentError('unknown field "gift" in order');
    },
    { consumerName: 'test', consumerVersion: 'v1', concurrency: 20 },
  );
  c.close = () => consumer.close();
  return c;
}

/** Sends per 1-second window from the first send, from the items' recorded sent_at (full windows only). */
export async function sendsPerSecond(taskId: string): Promise<number[]> {
  const rows = await db().redriveItem.findMany({ where: { taskId, sentAt: { not: null } }, select: { sentAt: true } });
  const times = rows.map((r) => r.sentAt!.getTime()).sort((a, b) => a - b);
  if (times.length === 0) return [];
  const t0 = times[0]!;
  const full = Math.floor((times[times.length - 1]! - t0) / 1000);
  const windows = new Array<number>(full).fill(0);
  for (const t of times) {
    const w = Math.floor((t - t0) / 1000);
    if (w < full) windows[w]!++;
  }
  return windows;
}

/** workers/redrive.ts as its own process. */
export function spawnRedriveWorker(): WorkerChild {
  return spawnWorkerChild('workers/redrive.ts');
}

/** A wall clock the test moves on: real time plus an offset (the runner's pacing needs time to pass). */
export function shiftedClock(): { now: () => number; advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/**
 * The scaffolding of a test with redrive worker processes: a receiver, and the workers the test
 * pushes onto `workers`; every worker is SIGKILLed and the receiver closed afterwards, whatever
 * the test threw.
 */
export async function withReceiverAndWorkers(test: (http: Receiver, workers: WorkerChild[]) => Promise<void>): Promise<void> {
  const http = await receiver();
  const workers: WorkerChild[] = [];
  try {
    await test(http, workers);
  } finally {
    for (const wp of workers) wp.process.kill('SIGKILL');
    await Promise.all(workers.map((wp) => wp.exited));
    await http.close();
  }
}

/** How many distinct messages the receiver got. */
export const deliveredMessages = (http: Receiver) => new Set(http.deliveries.map((d) => d.messageId)).size;

/** Waits until the receiver has had `n` distinct messages (polled every 20 ms: a fault test acts at that count). */
export async function waitForDelivered(http: Receiver, n: number): Promise<void> {
  await waitFor(`${n} delivered`, async () => deliveredMessages(http) >= n, 120_000, 20);
}

/** The task once completed (polled every `everyMs`, at most `timeoutMs`). */
export function completedTask(taskId: string, timeoutMs: number, everyMs: number) {
  return waitFor(
    'completed',
    async () => {
      const t = await db().redriveTask.findUniqueOrThrow({ where: { id: taskId } });
      return t.status === 'completed' ? t : undefined;
    },
    timeoutMs,
    everyMs,
  );
}

/** Every delivery carries its own dead letter's message id (0 lost, none mixed up): deliveries per message. */
export function deliveriesPerMessage(http: Receiver, messageOf: Map<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const d of http.deliveries) {
    expect(messageOf.get(d.deadLetterId)).toBe(d.messageId);
    counts.set(d.messageId, (counts.get(d.messageId) ?? 0) + 1);
  }
  return counts;
}
