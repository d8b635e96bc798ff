// The security files' set-up (test/support/lifecycle.ts): a fresh database once per file, the demo's
// fixtures seeded into it, and every pool closed at the end.
import { QUEUES, producerQueue } from '@/lib/queue';
import { freshDatabase } from '../support/lifecycle';
import { seedFixtures, type Fixtures } from './fixtures';

/** The file's fixtures, seeded before its first test; `close` runs at the end, before the pools close. */
export function seededFixtures(close?: () => Promise<unknown>): Fixtures {
  const fx = {} as Fixtures;
  freshDatabase({ per: 'file', seed: async () => Object.assign(fx, await seedFixtures()), close });
  return fx;
}

/**
 * Calls as every role queue webhook deliveries and redrive nudges for rows the next file's reset
 * removes: the run's queues are left empty for the tests that start those workers.
 */
export async function emptyWebhookAndRedriveQueues(): Promise<void> {
  for (const name of [QUEUES.webhooks, QUEUES.redrive]) await producerQueue(name).obliterate({ force: true });
}
