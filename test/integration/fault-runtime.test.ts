// Fault tests of the broker runtime: the consumer PROCESS is SIGKILLed over
// and over while 10,000 messages with 5% poison flow through it, and (when allowed) Redis restarts
// without persistence mid-run. Every message must end acknowledged or as exactly one dead letter.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pg } from '@/lib/db';
import { env } from '@/lib/env';
import { producerQueue, QUEUES } from '@/lib/queue';
import { sendMany, type OutgoingMessage } from '@/lib/runtime';
import { inFlight, runtimeTestLifecycle, spawnConsumer, testSource, waitFor } from './runtime-support';
import type { WorkerChild } from '../support/worker-child';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** `count` messages, every 20th poison (5%); bodies of any bytes, a few empty. */
function messages(prefix: string, count: number) {
  const sent = new Map<string, { poison: boolean; sha: string }>();
  const list: OutgoingMessage[] = [];
  for (let i = 0; i < count; i++) {
    const messageId = `${prefix}-${i}`;
    const poison = i % 20 === 7;
    const body = i % 97 === 0 ? new Uint8Array() : new Uint8Array(randomBytes(8 + (i % 200)));
    sent.set(messageId, { poison, sha: sha(body) });
    list.push({ messageId, body, headers: poison ? { 'x-poison': String(i) } : {} });
  }
  return { sent, list };
}

interface Outcome {
  acked: Set<string>;
  dead: Map<string, { count: number; reason: string; sha: string }>;
}

async function outcomes(sourceId: string, prefix: string): Promise<Outcome> {
  const acks = await pg()<{ message_id: string }[]>`SELECT message_id FROM runtime_acks WHERE message_id LIKE ${`${prefix}-%`}`;
  const dead = await pg()<{ message_id: string; n: number; reason: string; sha: string }[]>`
    SELECT message_id, count(*)::int AS n, min(reason::text) AS reason, min(payload_sha256) AS sha
    FROM dead_letters WHERE source_id = ${sourceId} AND message_id LIKE ${`${prefix}-%`} GROUP BY message_id`;
  return {
    acked: new Set(acks.map((a) => a.message_id)),
    dead: new Map(dead.map((d) => [d.message_id, { count: d.n, reason: d.reason, sha: d.sha }])),
  };
}

function settled(o: Outcome, ids: Iterable<string>): number {
  let n = 0;
  for (const id of ids) if (o.acked.has(id) || o.dead.has(id)) n++;
  return n;
}

/** Each message: poison → exactly one Rejected dead letter with its exact bytes, never acked; the rest acknowledged. */
function expectExactlyOnce(o: Outcome, sent: Map<string, { poison: boolean; sha: string }>, ids: Iterable<string> = sent.keys()) {
  const wrong: string[] = [];
  for (const id of ids) {
    const m = sent.get(id)!;
    const d = o.dead.get(id);
    const ok = m.poison ? !o.acked.has(id) && d?.count === 1 && d.reason === 'Rejected' && d.sha === m.sha : o.acked.has(id) && !d;
    if (!ok) wrong.push(`${id} poison=${m.poison} acked=${o.acked.has(id)} dead=${JSON.stringify(d)}`);
  }
  expect(wrong.slice(0, 10)).toEqual([]);
}

describe('runtime under faults', () => {
  runtimeTestLifecycle();

  it('loses nothing and dead-letters nothing twice while the consumer process is SIGKILLed repeatedly', { timeout: 180_000 }, async () => {
    const name = `fault-${Date.now().toString(36)}`;
    // A short visibility timeout so a killed consumer's messages come back within about a second.
    const source = await testSource(name, { visibilityTimeoutMs: 1_000, maxReceives: 10, backoffBaseMs: 50 });
    const { sent, list } = messages('f', 10_000);

    // All 10,000 go in at once: the consumer has a backlog, so every kill finds messages in flight
    // (being handled, or parked and not yet swept).
    for (let i = 0; i < list.length; i += 1_000) await sendMany(name, list.slice(i, i + 1_000));

    let kills = 0;
    const caught = { active: 0, parked: 0 }; // what each kill interrupted, as seen just before it
    let consumer: WorkerChild = spawnConsumer({ CONSUMER_CONCURRENCY: '20' });
    await consumer.ready;
    const deadline = Date.now() + 150_000;
    for (;;) {
      const o = await outcomes(source.id, 'f');
      const done = settled(o, sent.keys()) === sent.size && (await inFlight(name)) === 0;
      if (done && kills >= 5) break;
      if (Date.now() > deadline) throw new Error(`not settled in time: ${settled(o, sent.keys())} of ${sent.size}, ${kills} kills`);
      if (!done || kills < 5) {
        await pause(700 + Math.floor(Math.random() * 800));
        const counts = await producerQueue(QUEUES.source(name)).getJobCounts('active', 'failed');
        caught.active += counts.active ?? 0;
        caught.parked += counts.failed ?? 0;
        consumer.process.kill('SIGKILL');
        await consumer.exited;
        kills++;
        consumer = spawnConsumer({ CONSUMER_CONCURRENCY: '20' });
        await consumer.ready;
      } else {
        await pause(500);
      }
    }
    const o = await outcomes(source.id, 'f');
    expectExactlyOnce(o, sent);
    expect(o.acked.size + o.dead.size).toBe(10_000);
    expect(o.dead.size).toBe(500);
    expect(kills).toBeGreaterThanOrEqual(5);
    const [rows] = await pg()<{ n: number }[]>`SELECT count(*)::int AS n FROM dead_letters WHERE source_id = ${source.id}`;
    expect(rows?.n).toBe(500);
    // Evidence that the kills hit messages in flight: deliveries that came back after a kill.
    const [redelivered] = await pg()<{ n: number }[]>`
      SELECT (SELECT count(*) FROM runtime_acks WHERE message_id LIKE 'f-%' AND receives > 1)
           + (SELECT count(*) FROM dead_letters WHERE source_id = ${source.id} AND receive_count > 1) AS n`;
    console.info(
      `fault test: 10,000 messages, ${kills} SIGKILLs (interrupting about ${caught.active} deliveries and ${caught.parked} parked jobs not yet written), ` +
        `${o.acked.size} acknowledged, ${o.dead.size} dead letters, 0 lost, 0 duplicates; ${redelivered?.n} settled on a redelivery after a kill`,
    );
  });

  // Restarting Redis disturbs everyone using it, so this runs in CI (alone on its machine) or when asked.
  it.skipIf(!(process.env.TRIAGE_FAULT_REDIS_RESTART === '1' || process.env.CI))(
    'keeps every committed dead letter through a Redis restart without persistence, and the consumer goes on by itself',
    { timeout: 180_000 },
    async () => {
      const name = `restart-${Date.now().toString(36)}`;
      const source = await testSource(name, { visibilityTimeoutMs: 1_000, maxReceives: 10, backoffBaseMs: 50 });
      const consumer = spawnConsumer({ CONSUMER_CONCURRENCY: '20' });
      await consumer.ready;

      const before = messages('a', 3_000);
      const sending = (async () => {
        for (let i = 0; i < before.list.length; i += 300) {
          await sendMany(name, before.list.slice(i, i + 300));
          await pause(200);
        }
      })();
      await waitFor('dead letters committed before the restart', async () => (await outcomes(source.id, 'a')).dead.size >= 40, 60_000);
      const committed = await pg()<{ id: bigint; message_id: string; payload_sha256: string }[]>`
        SELECT id, message_id, payload_sha256 FROM dead_letters WHERE source_id = ${source.id} ORDER BY id`;

      const url = new URL(env().REDIS_URL);
      const port = url.port || '6379';
      execFileSync('redis-cli', ['-p', port, 'shutdown', 'nosave']);
      execFileSync('redis-server', [
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '-::1',
        '--port',
        port,
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        '/var/lib/redis',
        '--logfile',
        '/var/log/redis/ci.log',
      ]);
      await waitFor('Redis back', async () => {
        try {
          return execFileSync('redis-cli', ['-p', port, 'ping']).toString().trim() === 'PONG';
        } catch {
          return false;
        }
      });
      await sending.catch(() => {}); // sends during the restart may fail: those messages were never accepted

      const after = messages('b', 1_000);
      await waitFor('sending again after the restart', async () => {
        try {
          await sendMany(name, after.list);
          return true;
        } catch {
          return false;
        }
      });
      await waitFor(
        'the consumer, never restarted, to settle every message sent after the restart',
        async () => settled(await outcomes(source.id, 'b'), after.sent.keys()) === after.sent.size && (await inFlight(name)) === 0,
        90_000,
      );
      expect(consumer.process.exitCode).toBeNull();
      expectExactlyOnce(await outcomes(source.id, 'b'), after.sent);

      const still = await pg()<{ id: bigint; message_id: string; payload_sha256: string }[]>`
        SELECT id, message_id, payload_sha256 FROM dead_letters WHERE id IN ${pg()(committed.map((c) => c.id.toString()))} ORDER BY id`;
      expect(still).toEqual(committed);
      const a = await outcomes(source.id, 'a');
      for (const d of a.dead.values()) expect(d.count).toBe(1);
      // Messages in Redis at the restart are gone by design (Redis held them only in flight); committed dead letters are not.
      console.info(
        `redis restart: ${committed.length} committed dead letters kept; of ${before.sent.size} sent before, ${settled(a, before.sent.keys())} settled and the rest were in Redis at the restart; all ${after.sent.size} sent after settled`,
      );
    },
  );
});
