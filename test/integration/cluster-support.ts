// For the cluster tests: the security suite's fixtures (test/security/fixtures.ts) and its people,
// dead letters of one cause in a fixtures source, and the code of a refusal.
import { ZodError } from 'zod';
import { db } from '@/lib/db';
import type { Principal } from '@/lib/auth';
import { setGroupingRules } from '@/lib/clustering/set-grouping-rules';
import { AppError } from '@/lib/errors';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { freshDatabase } from '../support/lifecycle';
import { principal, seedFixtures, type Fixtures, type FixtureSource } from '../security/fixtures';

/**
 * The file's hooks (freshDatabase) with the fixtures seeded after each reset: the fixtures, and a
 * fixture user as a principal by email.
 */
export function clusterFixtures() {
  const fx = {} as Fixtures;
  freshDatabase({ seed: async () => Object.assign(fx, await seedFixtures()) });
  return { fx, as: (email: string) => principal(fx.users[email]!) };
}

/** The code of the AppError `p` rejects with; a ZodError is the route guard's 422, 'unprocessable'. */
export async function refusal(p: Promise<unknown>, opts: { schema?: boolean } = { schema: true }): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (e instanceof ZodError && opts.schema) return 'unprocessable';
  if (!(e instanceof AppError)) throw new Error(`expected a refusal, got ${String(e)}`);
  return e.code;
}

/** The code of a refusal by the product's own rules: input the schema refuses fails the test instead. */
export const ruleRefusal = (p: Promise<unknown>) => refusal(p, { schema: false });

/** Records dead letters in a fixtures source, with the fixtures' retention. */
export const record = (source: FixtureSource, deadLetters: NewDeadLetter[]) => recordDeadLetters({ id: source.id, retentionSeconds: 14 * 86400 }, deadLetters);

/** The cluster a dead letter was counted into. */
export async function clusterOf(deadLetterId: string): Promise<string> {
  return (await db().deadLetter.findUniqueOrThrow({ where: { id: BigInt(deadLetterId) } })).clusterId!;
}

/** The clusters recorded dead letters were counted into, in their order. */
export const clustersOf = (recorded: { id: string }[]): Promise<string[]> => Promise.all(recorded.map((r) => clusterOf(r.id)));

/**
 * `lead` makes the source mask the values at `sensitivePath` and group its dead letters by the
 * payload at `path`.
 */
export async function groupBySensitive(lead: Principal, source: FixtureSource, sensitivePath: string, path: string, reason: string): Promise<void> {
  await db().source.update({ where: { id: source.id }, data: { sensitivePaths: [sensitivePath] } });
  await setGroupingRules(lead, source.name, { rules: { groupBy: [{ field: 'payload', path }] }, reason });
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
