// A worker's query gets an error, not a hang: worker connections carry a statement
// timeout (WORKER_STATEMENT_TIMEOUT_MS, short here), so a handler whose query waits on a lock the
// test holds fails with Postgres's timeout, its message ends as a dead letter saying so, and the
// consumer goes on with the next message once the lock is gone.
import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { db, pg } from '@/lib/db';
import { send } from '@/lib/runtime';
import { runtimeTestLifecycle, spawnConsumer, testSource, waitFor } from './runtime-support';

describe('worker statement timeout', () => {
  runtimeTestLifecycle();

  it('fails a handler query blocked on a lock with a statement timeout, and the consumer goes on', { timeout: 120_000 }, async () => {
    const name = `stmt-timeout-${Date.now().toString(36)}`;
    const source = await testSource(name, { maxReceives: 2, backoffBaseMs: 100, backoffCapMs: 200 });
    const consumer = spawnConsumer({ WORKER_STATEMENT_TIMEOUT_MS: '1000', CONSUMER_DISCOVERY_MS: '300' });
    await consumer.ready;

    // The test holds a lock the handler's INSERT waits on, for as long as it takes (at most 40 s).
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = pg().begin(async (tx: postgres.TransactionSql) => {
      await tx`LOCK TABLE runtime_acks IN ACCESS EXCLUSIVE MODE`;
      locked();
      await Promise.race([released, new Promise((r) => setTimeout(r, 40_000))]);
    });
    await isLocked;
    try {
      await send(name, new TextEncoder().encode('{"order":1}'), {}, { messageId: 'blocked-1' });
      // Both receives time out on the lock: the message is a dead letter with Postgres's reason.
      const dead = await waitFor(
        'the blocked message as a dead letter',
        async () => (await db().deadLetter.findFirst({ where: { sourceId: source.id, messageId: 'blocked-1' } })) ?? undefined,
        30_000,
      );
      expect(dead.errorMessage).toMatch(/statement timeout/);
      expect(dead.receiveCount).toBe(2);
    } finally {
      release();
      await holder;
    }

    // The lock gone, the same consumer process handles the next message.
    await send(name, new TextEncoder().encode('{"order":2}'), {}, { messageId: 'after-1' });
    await waitFor('the next message acknowledged', async () => (await pg()`SELECT 1 FROM runtime_acks WHERE message_id = 'after-1'`).length === 1, 30_000);
    expect(consumer.process.exitCode).toBeNull();
  });
});
