// For the partition tests: which partition holds a dead letter, and a dead letter of a month whose
// partition a test then detaches, drops or finds waiting.
import { manualClock } from '@/lib/clock';
import { db } from '@/lib/db';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { ensurePartitions } from '@/lib/retention/partitions';
import { deadLetter, demoWorld } from './sla-fixtures';

/** The partition that holds dead letter `id`, or undefined once none does. */
export const partitionOf = async (id: bigint | string) =>
  (await db().$queryRawUnsafe<{ p: string }[]>(`SELECT tableoid::regclass::text AS p FROM dead_letters WHERE id = $1`, BigInt(id)))[0]?.p;

/** The demo world with August 2026's partition made and one orders dead letter of 4 August (with `over`) in it. */
export async function worldWithAugustDeadLetter(over: Partial<NewDeadLetter> = {}) {
  const world = await demoWorld();
  await ensurePartitions(manualClock(new Date('2026-08-01T00:00:00Z')), 0);
  const [august] = await recordDeadLetters(world.sources.orders, [deadLetter({ deadAt: new Date('2026-08-04T00:00:00Z'), ...over })]);
  return { ...world, august: august! };
}
