// Dead letters of one cause in a fixtures source (test/security/fixtures.ts), for the cluster tests.
import { db } from '@/lib/db';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import type { Fixtures, FixtureSource } from '../security/fixtures';

/** Records dead letters in a fixtures source, with the fixtures' retention. */
export const record = (source: FixtureSource, deadLetters: NewDeadLetter[]) => recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86400 }, deadLetters);

/** The cluster a dead letter was counted into. */
export async function clusterOf(deadLetterId: string): Promise<string> {
  return (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(deadLetterId) } })).clusterId!;
}

/** `n` dead letters of `ApiError: message` in `source` (message ids `source-message-tag<i>`): the id of the cluster they form. */
export async function poisonCluster(fx: Fixtures, source: 'orders' | 'payments', message: string, n = 1, tag = ''): Promise<string> {
  const rows = await record(
    fx.sources[source],
    Array.from({ length: n }, (_, i) => ({
      messageId: `${source}-${message}-${tag}${i}`,
      payload: new TextEncoder().encode('{}'),
      reason: 'Rejected' as const,
      errorType: 'ApiError',
      errorMessage: message,
    })),
  );
  return clusterOf(rows[0]!.id);
}
