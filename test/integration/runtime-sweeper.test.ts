// The dead-letter sweeper under load it cannot write at once: the bodies it holds and
// the batches it writes are bounded by bytes, not counts; failed jobs that cannot be written as they
// are (a NUL in a message id) neither starve the ones behind them nor stay stuck in Redis. The
// failed jobs are real: a plain BullMQ worker fails them, as a consumer that crashed after parking
// them would leave them; Postgres and Redis are the real ones.
import { afterEach, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { randomBytes } from 'node:crypto';
import { SYSTEM } from '@/lib/auth';
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import { listAlarmStates } from '@/lib/alarms/list-alarms';
import { db } from '@/lib/db';
import { producerQueue, QUEUES } from '@/lib/queue';
import { redisConnection, type RedisClient } from '@/lib/redis';
import { consume, type Consumer } from '@/lib/runtime';
import { DeadLetterSweeper } from '@/lib/runtime/dead-letter-sweeper';
import { dropTestQueues, failedJobs, testSource, waitFor } from './runtime-support';

const KiB = 1024;
const MiB = 1024 * KiB;
let n = 0;
const uniqueName = (what: string) => `${what}-${Date.now().toString(36)}-${n++}`;

const redises: RedisClient[] = [];
const consumers: Consumer[] = [];
const sweepers: DeadLetterSweeper[] = [];

/**
 * A source of its own whose queue holds failed jobs nobody swept (these message ids, one small body),
 * and a consumer of it started: its sweeper finds them.
 */
async function strayFailedJobs(what: string, messageIds: string[]) {
  const name = uniqueName(what);
  const source = await testSource(name);
  const body = new TextEncoder().encode('{"order":1}');
  await failedJobs(
    name,
    messageIds.map((messageId) => ({ messageId, body })),
  );
  consumers.push(await consume(name, async () => undefined));
  return { name, source };
}

describe('dead-letter sweeper', () => {
  freshDatabase({ close: dropTestQueues });
  afterEach(async () => {
    await Promise.all(sweepers.splice(0).map((s) => s.stop()));
    await Promise.all(consumers.splice(0).map((c) => c.close()));
    await Promise.all(redises.splice(0).map((r) => r.quit()));
  });

  it('holds and writes parked bodies bounded by bytes: 40 messages of 256 KiB with a 1 MiB budget', async () => {
    const name = uniqueName('sweep-bytes');
    const source = await testSource(name);
    await failedJobs(
      name,
      Array.from({ length: 40 }, (_, i) => ({ messageId: `big-${i}`, body: new Uint8Array(256 * KiB).fill(i) })),
    );
    const queue = producerQueue(QUEUES.source(name));
    const redis = redisConnection('worker');
    redises.push(redis);
    const sweeper = new DeadLetterSweeper(queue, redis, () => ({ id: source.id, retentionSeconds: 14 * 86400 }), { maxParkedBytes: MiB, batchBytes: MiB });
    sweepers.push(sweeper);
    // The consumer hands every one over at once (BullMQ's 'failed' event); only a budget's worth is kept in memory.
    for (const job of await queue.getJobs(['failed'])) sweeper.add(job);
    expect(sweeper.stats.maxHeldBytes).toBeLessThanOrEqual(MiB);
    sweeper.start();
    // What it did not hold is swept from Redis (the stray sweep), in batches under the same budget.
    await waitFor('40 dead letters', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 40, 60_000);
    await waitFor('an empty failed set', async () => (await queue.getFailedCount()) === 0);
    expect(sweeper.stats.largestBatchBytes).toBeGreaterThan(0);
    expect(sweeper.stats.largestBatchBytes).toBeLessThanOrEqual(MiB);
    expect(sweeper.stats.maxHeldBytes).toBeLessThanOrEqual(MiB);
  });

  it('110 old failed jobs with a NUL in their message id neither starve the 5 behind them nor stay stuck: all are written, the ids cleaned', async () => {
    const { name, source } = await strayFailedJobs('sweep-nul', [
      ...Array.from({ length: 110 }, (_, i) => `nul\u0000${i}`),
      ...Array.from({ length: 5 }, (_, i) => `fine-${i}`),
    ]);
    await waitFor(
      'the 5 written behind them',
      async () => (await db().deadLetter.count({ where: { sourceId: source.id, messageId: { startsWith: 'fine-' } } })) === 5,
      30_000,
    );
    await waitFor('the 110 written too', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 115, 30_000);
    const ids = (await db().deadLetter.findMany({ where: { sourceId: source.id, messageId: { startsWith: 'nul' } }, select: { messageId: true } })).map(
      (d) => d.messageId,
    );
    expect(ids).toContain('nul\uFFFD7');
    await waitFor('an empty failed set', async () => (await producerQueue(QUEUES.source(name)).getFailedCount()) === 0);
  });

  it('raises a quarantine alarm on the source for jobs Postgres refuses, saying how many, why and where, and clears it once the quarantine is emptied', async () => {
    // A message id longer than a btree index row may be (random, so it does not compress): Postgres
    // refuses the row (54000) however it is cleaned.
    const { name, source } = await strayFailedJobs('sweep-quarantine', [
      ...Array.from({ length: 3 }, (_, i) => `huge-${i}-${randomBytes(12 * KiB).toString('base64')}`),
      ...Array.from({ length: 2 }, (_, i) => `ok-${i}`),
    ]);
    await waitFor('the 2 written', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 2, 30_000);
    const queue = producerQueue(QUEUES.source(name));
    await waitFor('an empty failed set', async () => (await queue.getFailedCount()) === 0);
    const redis = redisConnection('worker');
    redises.push(redis);
    const key = queue.toKey('triage-quarantine');
    expect(await redis.zcard(key)).toBe(3);

    // The maintenance worker's evaluation raises it at once, where the other alarms are.
    const raised = await evaluateAlarms();
    expect(raised.transitions).toContainEqual(expect.objectContaining({ sourceId: source.id, kind: 'quarantine', from: 'OK', to: 'ALARM', value: 3 }));
    const alarm = (await listAlarmStates(SYSTEM, { sourceId: source.id })).find((a) => a.kind === 'quarantine');
    expect(alarm).toMatchObject({ state: 'ALARM', label: 'jobs quarantined', detail: expect.objectContaining({ value: 3, key }) });
    expect(alarm!.hint).toMatch(/Postgres refused/);
    expect(alarm!.hint).toMatch(/ZRANGE/);
    // Where they are, on the alarms page and the source's banner (both show the hint).
    expect(alarm!.hint).toContain(key);
    expect(await db().alarmEvent.count({ where: { sourceId: source.id, kind: 'quarantine', to: 'ALARM' } })).toBe(1);

    // Still there at the next evaluation: no new transition.
    expect((await evaluateAlarms()).transitions.filter((t) => t.sourceId === source.id)).toEqual([]);

    // An operator deals with them and empties the quarantine: the alarm clears.
    await redis.del(key);
    const cleared = await evaluateAlarms();
    expect(cleared.transitions).toContainEqual(expect.objectContaining({ sourceId: source.id, kind: 'quarantine', from: 'ALARM', to: 'OK' }));
    expect((await listAlarmStates(SYSTEM, { sourceId: source.id })).find((a) => a.kind === 'quarantine')?.state).toBe('OK');
  });
});
