// The set-up and tear-down the integration files share, so that each file states only what differs:
// when the database is reset (before each test, or once for a file whose tests build on each other),
// what is seeded after the reset, which queues to empty and what else to close at the end. At the end every pool a test
// may have opened is closed (closing one never opened costs nothing): ingest's own SQL, the queues'
// Redis, the database.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { closeDb } from '@/lib/db';
import { closeIngestSql } from '@/lib/ingest/ingest-sql';
import { closeQueues, producerQueue } from '@/lib/queue';
import { partitionNames, resetDatabase, restorePartitions } from './db';

export interface FreshDatabase {
  /** `test` (the default): reset before each test; `file`: once, before the first. */
  per?: 'test' | 'file';
  /**
   * Run after each reset: the file's fixtures, copied into an object the tests hold for good
   * (`const fx = {} as Fixtures` and `seed: async () => Object.assign(fx, await seedFixtures())`).
   */
  seed?: () => Promise<unknown>;
  /** Run at the end, before the pools close. */
  close?: () => Promise<unknown>;
  /**
   * BullMQ queues the file's tests fill (redrive nudges, webhook deliveries, maintenance jobs),
   * emptied at the end: their jobs name rows the next file's reset removes.
   */
  queues?: string[];
  /** Drop the dead_letters months the file's tests created (the files of a run share a database). */
  partitions?: boolean;
}

export function freshDatabase(opts: FreshDatabase = {}): void {
  let months: Set<string> | undefined;
  if (opts.partitions)
    beforeAll(async () => {
      months = await partitionNames();
    });
  (opts.per === 'file' ? beforeAll : beforeEach)(async () => {
    await resetDatabase();
    await opts.seed?.();
  });
  afterAll(async () => {
    if (months) await restorePartitions(months);
    await opts.close?.();
    for (const name of opts.queues ?? []) await producerQueue(name).obliterate({ force: true });
    await closeIngestSql();
    await closeQueues();
    await closeDb();
  });
}
