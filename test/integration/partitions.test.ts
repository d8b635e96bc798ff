// dead_letters partitioned by month on dead_at (migration 20261201200000_partition_dead_letters,
// lib/retention/partitions.ts), on the real Postgres and Redis:
// - idempotency survives a retry whose dead-letter time is another month (another partition): through
//   the ingest API, the broker runtime's sweeper and a connector's mapping (RabbitMQ, a message without
//   x-death: its dead time is the delivery's);
// - lookups and updates by id still work through the Prisma client, and ids stay unique;
// - months are created ahead, rows of the default partition move into a month created for them;
// - retention drops an expired month whole: its tombstones move to dead_letter_tombstones, its search
//   rows go, its keys stay; an older month whose dead letter a running redrive holds is untouched,
//   and cluster counts and the SLA board's retention counts are what they were; a month a task awaiting
//   approval holds stays, and one a crash left detached is finished (tombstones, audit, drop) next run.
import { UnrecoverableError, Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import type { ConsumeMessage } from 'amqplib';
import { SYSTEM } from '@/lib/auth';
import { DAY, MINUTE, manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { closeDeadLetters } from '@/lib/deadletters/close-dead-letters';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { toDeadLetter } from '@/lib/connectors/rabbitmq/message';
import { producerQueue, queuePrefix, QUEUES } from '@/lib/queue';
import { redisConnection } from '@/lib/redis';
import {
  ANALYZE_PARENT_EVERY_MS,
  analyzeParentIfStale,
  analyzeStalePartitions,
  dropExpiredPartitions,
  ensurePartitions,
  listPartitions,
} from '@/lib/retention/partitions';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { DeadLetterSweeper } from '@/lib/runtime/dead-letter-sweeper';
import { encodeBody, jobIdFor, type Envelope } from '@/lib/queue/envelope';
import { getSlaBoard } from '@/lib/sla/sla-board';
import { computeAgeStats } from '@/lib/sla/age-stats';
import { POST as postBatch } from '@/app/api/v1/sources/[source]/dead-letters/route';
import { b64, ctx, jsonRequest, world } from './deadletters-world';
import { dropTestQueues, testSource, waitFor } from './runtime-support';
import { partitionOf, worldWithAugustDeadLetter } from './partition-support';
import { deadLetter, demoWorld } from './sla-fixtures';

const rowsOf = async (sourceId: string) => db().deadLetter.findMany({ where: { sourceId }, orderBy: { id: 'asc' } });

describe('partitioned dead letters', () => {
  freshDatabase({ partitions: true, close: dropTestQueues });

  it('the migration left a partitioned table: months ahead of now, a default, ids unique through the key table', async () => {
    const parts = await listPartitions();
    expect(parts.at(-1)).toMatchObject({ name: 'dead_letters_default', isDefault: true });
    const now = new Date();
    const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const covers = (t: Date) => parts.some((p) => !p.isDefault && (p.from ?? new Date(-8.64e15)) <= t && (p.to ?? new Date(8.64e15)) > t);
    for (const n of [0, 1, 2]) expect(covers(new Date(Date.UTC(thisMonth.getUTCFullYear(), thisMonth.getUTCMonth() + n, 15)))).toBe(true);
    const [kind] = await db().$queryRaw<{ relkind: string }[]>`SELECT relkind::text FROM pg_class WHERE relname = 'dead_letters'`;
    expect(kind?.relkind).toBe('p');
    // The same id twice (in two partitions) is refused by the key table's primary key.
    const { sources } = await demoWorld();
    const [a] = await recordDeadLetters(sources.orders, [deadLetter({ deadAt: now })]);
    await expect(
      db().$executeRawUnsafe(
        `INSERT INTO dead_letter_keys (id, source_id, message_id, generation, dead_at, payload_sha256) VALUES ($1, $2::uuid, 'other', 0, now() - interval '40 days', repeat('0', 64))`,
        BigInt(a!.id),
        sources.orders.id,
      ),
    ).rejects.toThrow(/dead_letter_keys_pkey/);
  });

  it('maintenance analyzes the partitioned parent (autovacuum never does) when its statistics are stale or the partitions changed', async () => {
    const lastAnalyze = async () =>
      (await db().$queryRaw<{ at: Date | null }[]>`SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relid = 'dead_letters'::regclass`)[0]?.at ?? null;
    const now = new Date();
    expect(await analyzeParentIfStale(manualClock(now), true)).toBe(true);
    const first = await lastAnalyze();
    expect(first).not.toBeNull();
    // Just analyzed and nothing changed: not again.
    expect(await analyzeParentIfStale(manualClock(new Date(now.getTime() + MINUTE)))).toBe(false);
    expect(await lastAnalyze()).toEqual(first);
    // Past the interval: again.
    expect(await analyzeParentIfStale(manualClock(new Date(now.getTime() + ANALYZE_PARENT_EVERY_MS + MINUTE)))).toBe(true);
  });

  it("maintenance vacuums and analyzes a month's partition that grew past its statistics (a storm autovacuum has not caught up with), once", async () => {
    const { sources } = await demoWorld();
    const now = new Date();
    await ensurePartitions(manualClock(now));
    const month = `dead_letters_p${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const stats = async () =>
      (
        await db().$queryRawUnsafe<{ changed: bigint; analyzed: Date | null; inserted: bigint }[]>(
          `SELECT n_mod_since_analyze AS changed, greatest(last_analyze, last_autoanalyze) AS analyzed, n_ins_since_vacuum AS inserted
         FROM pg_stat_user_tables WHERE relname = $1`,
          month,
        )
      )[0]!;
    // Analyzed now (whatever earlier files left), so the storm below is all it has not seen.
    await db().$executeRawUnsafe(`ANALYZE ${month}`);
    for (let b = 0; b < 6; b++)
      await recordDeadLetters(
        sources.orders,
        Array.from({ length: 500 }, () => deadLetter({ deadAt: now })),
      );
    // Each backend reports its counts to the statistics a little after its commit (PostgreSQL 15: up to 10 s).
    await waitFor("the partition's counts", async () => (await stats()).changed >= 3_000n, 20_000);
    const before = (await stats()).analyzed;
    const analyzed = await analyzeStalePartitions();
    const after = await stats();
    // Autovacuum (off on CI's Postgres, on by default elsewhere) may have been first: either way it is analyzed now.
    if (!analyzed.includes(month)) expect(after.analyzed).not.toEqual(before);
    expect(after.analyzed).not.toBeNull();
    expect(after.changed).toBeLessThan(3_000n);
    // Vacuumed too: the pages the storm filled are in the visibility map (index-only scans, and the planner prices them so).
    expect(after.inserted).toBeLessThan(3_000n);
    // Fresh statistics: not again.
    expect(await analyzeStalePartitions()).not.toContain(month);
  });

  it('a retry through the ingest API with a dead time a month later creates nothing new', async () => {
    const w = await world();
    const post = (deadAt: string) =>
      postBatch(
        jsonRequest('/api/v1/sources/orders/dead-letters', w.tokens.ingest.orders, {
          deadLetters: [
            { messageId: 'm-1', payload: b64('{"order":1}'), deadAt },
            { messageId: 'm-2', payload: b64('{"order":2}'), deadAt },
          ],
        }),
        ctx({ source: 'orders' }),
      );
    await ensurePartitions(manualClock(new Date('2026-09-10T00:00:00Z')), 1);
    const first = (await (await post('2026-09-10T10:00:00.000Z')).json()) as { items: { id: string; created: boolean }[] };
    expect(first.items.map((i) => i.created)).toEqual([true, true]);
    // The forwarder re-stamps its retry: another wall-clock time, another partition.
    const again = (await (await post('2026-10-10T10:00:00.000Z')).json()) as { items: { id: string; created: boolean }[] };
    expect(again.items).toEqual(first.items.map((i) => ({ ...i, created: false })));
    const rows = await rowsOf(w.sources.orders.id);
    expect(rows.map((r) => [r.id.toString(), r.deadAt.toISOString()])).toEqual(first.items.map((i) => [i.id, '2026-09-10T10:00:00.000Z']));
    expect(await partitionOf(first.items[0]!.id)).toBe('dead_letters_p202609');
    // A batch (the COPY path) retried at another time, mixed with new keys, creates only the new ones.
    const source = { id: w.sources.orders.id, retentionSeconds: 14 * 86400 };
    const batch = (deadAt: Date, from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => ({ messageId: `b-${from + i}`, payload: new Uint8Array([i]), reason: 'Rejected' as const, deadAt }));
    const one = await recordDeadLetters(source, batch(new Date('2026-09-11T00:00:00Z'), 0, 100));
    const two = await recordDeadLetters(source, batch(new Date('2026-10-11T00:00:00Z'), 50, 150));
    expect(two.slice(0, 50)).toEqual(one.slice(50).map((r) => ({ ...r, created: false })));
    expect(two.slice(50).every((r) => r.created)).toBe(true);
    expect(await db().deadLetter.count({ where: { sourceId: source.id } })).toBe(152);
    expect(await db().deadLetterKey.count({ where: { sourceId: source.id } })).toBe(152);
  });

  it('the runtime: a failed job written, then written again as a later failure of it, is stored once', async () => {
    const name = `part-runtime-${Date.now().toString(36)}`;
    const source = await testSource(name);
    const queue = producerQueue(QUEUES.source(name));
    const data: Envelope = {
      body: encodeBody(new TextEncoder().encode('{"n":1}')),
      headers: {},
      messageId: 'job-1',
      enqueuedAt: new Date().toISOString(),
      redriveCount: 0,
    };
    await queue.add('message.deliver', data, { jobId: jobIdFor('job-1', 0), removeOnFail: false });
    const connection = redisConnection('worker');
    const worker = new Worker(
      QUEUES.source(name),
      async () => {
        throw new UnrecoverableError('crashed after parking it');
      },
      { connection, prefix: queuePrefix() },
    );
    await waitFor('a failed job', async () => (await queue.getFailedCount()) === 1);
    await worker.close();
    const policy = () => ({ id: source.id, retentionSeconds: 14 * 86400 });
    // First sweep: written, then the consumer died before removing the job from Redis.
    const redis = redisConnection('worker');
    const first = new DeadLetterSweeper(queue, redis, policy);
    const [job] = await queue.getJobs(['failed']);
    first.add(job!);
    first.start();
    await waitFor('written once', async () => (await db().deadLetter.count({ where: { sourceId: source.id } })) === 1);
    await first.stop();
    const [stored] = await rowsOf(source.id);
    // The same job as a later sweep sees it, failed again 40 days on (its dead time another month).
    await queue.add('message.deliver', data, { jobId: jobIdFor('job-1', 0), removeOnFail: false }).catch(() => undefined);
    const [again] = await queue.getJobs(['failed']);
    const later = again ?? job!;
    later.finishedOn = (later.finishedOn ?? Date.now()) + 40 * DAY;
    const second = new DeadLetterSweeper(queue, redis, policy);
    second.add(later);
    second.start();
    await waitFor('the failed set emptied', async () => (await queue.getFailedCount()) === 0);
    await second.stop();
    expect((await rowsOf(source.id)).map((r) => [r.id, r.deadAt.getTime()])).toEqual([[stored!.id, stored!.deadAt.getTime()]]);
    await Promise.all([connection.quit(), redis.quit()]);
  });

  it("a connector's redelivery (RabbitMQ, no x-death: dead at delivery) a month later creates nothing new", async () => {
    const { sources } = await demoWorld();
    const msg = {
      content: Buffer.from('{"order":7}'),
      properties: { headers: { 'x-triage-error': 'boom' }, messageId: 'amqp-7', contentType: 'application/json' },
      fields: { exchange: 'dlx', routingKey: 'orders' },
    } as unknown as ConsumeMessage;
    const delivered = toDeadLetter(msg, { now: new Date('2026-09-20T08:00:00Z') });
    const redelivered = toDeadLetter(msg, { now: new Date('2026-10-20T08:00:00Z') });
    expect(redelivered.deadAt).not.toEqual(delivered.deadAt);
    const [a] = await recordDeadLetters(sources.orders, [delivered]);
    const [b] = await recordDeadLetters(sources.orders, [redelivered]);
    expect(b).toEqual({ ...a, created: false });
    expect(await db().deadLetter.count({ where: { sourceId: sources.orders.id } })).toBe(1);
  });

  it('lookups and updates by id through the Prisma client work on the partitioned table', async () => {
    const { sources } = await demoWorld();
    const [a, b] = await recordDeadLetters(sources.orders, [deadLetter({ deadAt: new Date('2026-02-03T00:00:00Z') }), deadLetter({ deadAt: new Date() })]);
    const found = await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(a!.id) } });
    expect(found.deadAt.toISOString()).toBe('2026-02-03T00:00:00.000Z');
    await db().deadLetter.update({ where: { id: BigInt(b!.id) }, data: { decisionReason: 'looked at' } });
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(b!.id) } })).decisionReason).toBe('looked at');
    expect(await db().deadLetter.findFirst({ where: { sourceId: sources.orders.id, messageId: found.messageId, generation: 0 } })).toMatchObject({
      id: found.id,
    });
    // A month created later takes the rows the default partition held for it.
    expect(await partitionOf(a!.id)).toBe('dead_letters_default');
    const created = await ensurePartitions(manualClock(new Date('2026-02-10T00:00:00Z')), 0);
    expect(created).toEqual(['dead_letters_p202602']);
    expect(await partitionOf(a!.id)).toBe('dead_letters_p202602');
    expect(await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(a!.id) } })).toMatchObject({ id: found.id, payloadSha256: found.payloadSha256 });
    expect(await ensurePartitions(manualClock(new Date('2026-02-10T00:00:00Z')), 0)).toEqual([]);
  });

  it('retention drops an expired month whole, leaving tombstones, while an older month a running redrive holds stays', async () => {
    const { sources, users } = await demoWorld();
    const T0 = new Date('2026-06-10T09:00:00Z');
    await ensurePartitions(manualClock(new Date('2026-03-01T00:00:00Z')), 3); // March to June
    const march = await recordDeadLetters(sources.orders, [
      deadLetter({ deadAt: new Date('2026-03-05T00:00:00Z'), errorType: 'Held' }),
      deadLetter({ deadAt: new Date('2026-03-06T00:00:00Z'), errorType: 'Held' }),
    ]);
    const april = await recordDeadLetters(sources.orders, [
      deadLetter({ deadAt: new Date('2026-04-02T00:00:00Z'), errorType: 'Gone' }),
      deadLetter({ deadAt: new Date('2026-04-12T00:00:00Z'), errorType: 'Gone' }),
      deadLetter({ deadAt: new Date('2026-04-22T00:00:00Z'), errorType: 'Gone' }),
    ]);
    const [mayArchived] = await recordDeadLetters(sources.payments, [deadLetter({ deadAt: new Date('2026-05-02T00:00:00Z'), errorType: 'Kept' })]);
    const [juneOpen] = await recordDeadLetters(sources.orders, [deadLetter({ deadAt: new Date('2026-06-09T00:00:00Z'), errorType: 'Fresh' })]);
    expect(await partitionOf(april[0]!.id)).toBe('dead_letters_p202604');
    // March's first one is in a running redrive; April's second was in one that finished; April's third was discarded.
    const running = await db().redriveTask.create({ data: { sourceId: sources.orders.id, status: 'running', selection: { ids: [march[0]!.id] }, total: 1 } });
    await db().redriveItem.create({ data: { taskId: running.id, seq: 0, deadLetterId: BigInt(march[0]!.id), state: 'sent' } });
    const done = await db().redriveTask.create({ data: { sourceId: sources.orders.id, status: 'completed', selection: { ids: [april[1]!.id] }, total: 1 } });
    await db().redriveItem.create({ data: { taskId: done.id, seq: 0, deadLetterId: BigInt(april[1]!.id), state: 'acknowledged' } });
    await db().$transaction((tx) =>
      closeDeadLetters(tx, [BigInt(april[2]!.id)], 'discarded', {
        from: ['open'],
        decidedById: users.lead.userId,
        reason: 'invalid',
        at: new Date('2026-04-23T00:00:00Z'),
      }),
    );
    await db().$transaction((tx) =>
      closeDeadLetters(tx, [BigInt(mayArchived!.id)], 'archived', {
        from: ['open'],
        decidedById: users.financeLead.userId,
        reason: 'keep it',
        at: new Date('2026-05-03T00:00:00Z'),
      }),
    );
    // The row-by-row sweep expires the rest (14-day retention): all but the held one and June's.
    const clock = manualClock(T0);
    expect((await sweepExpired(clock)).expired).toBe(3);
    for (const d of [...march, ...april])
      await db().$executeRaw`INSERT INTO dead_letter_search (dead_letter_id, error_text) VALUES (${BigInt(d.id)}, 'x') ON CONFLICT DO NOTHING`;

    const board = async () => ({
      board: (await getSlaBoard(SYSTEM, { clock })).map((r) => [
        r.source.name,
        r.openCount,
        r.expireUndecided,
        r.expiringSoon,
        r.nextExpiryAt?.toISOString() ?? null,
      ]),
      stats: (await computeAgeStats(T0)).map((s) => JSON.stringify(s)).sort(),
    });
    const clusters = async () =>
      (await db().cluster.findMany({ include: { sources: true }, orderBy: { errorType: 'asc' } })).map((c) => [
        c.errorType,
        c.count,
        c.openCount,
        c.sources.map((s) => [s.count, s.openCount]),
      ]);
    const boardBefore = await board();
    const clustersBefore = await clusters();

    const dropped = await dropExpiredPartitions(clock);
    expect(dropped.filter((d) => d.rows > 0)).toEqual([{ name: 'dead_letters_p202604', rows: 3 }]);
    const names = (await listPartitions()).map((p) => p.name);
    expect(names).not.toContain('dead_letters_p202604');
    expect(names).toEqual(expect.arrayContaining(['dead_letters_p202603', 'dead_letters_p202605', 'dead_letters_p202606']));

    // April's rows live on as tombstones; their search rows went, their keys stay.
    const tombstones = await db().deadLetterTombstone.findMany({ orderBy: { id: 'asc' } });
    expect(tombstones.map((t) => [t.id.toString(), t.status, t.errorType])).toEqual([
      [april[0]!.id, 'expired', 'Gone'],
      [april[1]!.id, 'expired', 'Gone'],
      [april[2]!.id, 'discarded', 'Gone'],
    ]);
    expect(tombstones[2]).toMatchObject({ decidedById: users.lead.userId, decisionReason: 'invalid', payloadSha256: april[2]!.sha256 });
    const aprilIds = april.map((d) => BigInt(d.id));
    expect(await db().deadLetter.count({ where: { id: { in: aprilIds } } })).toBe(0);
    expect(await db().deadLetterSearch.count({ where: { deadLetterId: { in: aprilIds } } })).toBe(0);
    expect(await db().deadLetterKey.count({ where: { id: { in: aprilIds } } })).toBe(3);
    const events = await db().auditEvent.findMany({ where: { action: 'deadletter.partition_drop' } });
    expect(events.map((e) => [e.sourceId, e.count, e.actorEmail])).toEqual([[sources.orders.id, 3, 'retention']]);

    // The running redrive's dead letter, in the older month, is untouched; so are its task and item.
    expect(await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(march[0]!.id) } })).toMatchObject({ status: 'open', errorType: 'Held' });
    expect(await db().redriveItem.findFirstOrThrow({ where: { taskId: running.id } })).toMatchObject({ state: 'sent', deadLetterId: BigInt(march[0]!.id) });
    expect(await db().deadLetterSearch.count({ where: { deadLetterId: BigInt(march[0]!.id) } })).toBe(1);
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(mayArchived!.id) } })).status).toBe('archived');
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(juneOpen!.id) } })).status).toBe('open');

    // Cluster counts and the SLA board's retention counts are what they were.
    expect(await clusters()).toEqual(clustersBefore);
    expect(await board()).toEqual(boardBefore);
    // Nothing else is due: March stays while its redrive runs, May is archived, June is this month.
    expect((await dropExpiredPartitions(clock)).filter((d) => d.rows > 0)).toEqual([]);
    // A late retry of a dropped one is still a repeat.
    const [late] = await recordDeadLetters(sources.orders, [
      {
        messageId: tombstones[0]!.messageId,
        payload: new Uint8Array([1]),
        reason: 'MaxReceives',
        errorType: 'Gone',
        errorMessage: 'failure',
        deadAt: new Date('2026-06-10T00:00:00Z'),
      },
    ]);
    expect(late).toMatchObject({ id: april[0]!.id, created: false });
  });
  it('a month with a dead letter in a task awaiting approval stays; a month a crash left detached is finished by the next run', async () => {
    const { sources, august: waiting } = await worldWithAugustDeadLetter({ errorType: 'Waiting' });
    const task = await db().redriveTask.create({
      data: { sourceId: sources.orders.id, status: 'pending_approval', selection: { ids: [waiting!.id] }, total: 1 },
    });
    await db().redriveItem.create({ data: { taskId: task.id, seq: 0, deadLetterId: BigInt(waiting!.id), state: 'pending' } });
    const clock = manualClock(new Date('2026-10-10T00:00:00Z'));
    await sweepExpired(clock);
    expect((await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(waiting!.id) } })).status).not.toBe('open');
    await dropExpiredPartitions(clock);
    expect(await partitionOf(waiting!.id)).toBe('dead_letters_p202608');

    // Rejected: the month is free to go. A run that detached it and then died left the table behind.
    await db().redriveTask.update({ where: { id: task.id }, data: { status: 'cancelled' } });
    await db().$executeRawUnsafe('ALTER TABLE dead_letters DETACH PARTITION dead_letters_p202608');
    expect(await partitionOf(waiting!.id)).toBeUndefined();
    const dropped = await dropExpiredPartitions(clock);
    expect(dropped).toContainEqual({ name: 'dead_letters_p202608', rows: 1 });
    const [left] = await db().$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_class WHERE relname = 'dead_letters_p202608'`;
    expect(left?.n).toBe(0);
    expect(await db().deadLetterTombstone.findUnique({ where: { id: BigInt(waiting!.id) } })).toMatchObject({ errorType: 'Waiting' });
    const events = await db().auditEvent.findMany({ where: { action: 'deadletter.partition_drop' } });
    expect(events.map((e) => [e.count, (e.selection as { partition: string; from: string }).partition, (e.selection as { from: string }).from])).toEqual([
      [1, 'dead_letters_p202608', '2026-08-01T00:00:00.000Z'],
    ]);
    // The task awaiting approval still names its item, and the key stays (a late retry is a repeat).
    expect(await db().deadLetterKey.count({ where: { id: BigInt(waiting!.id) } })).toBe(1);
  });
});
