// The alarm evaluation's recent arrivals come from per-second counts kept by triggers (a
// pass over the last hour's dead letters took 10-13 s a cycle in a storm). Whatever the writes did
// (inserts at any millisecond, cluster moves, deaths moved in time, deletes), the figures, per
// cluster and per error class, equal a count of the dead letters themselves, at evaluation times that
// put window edges inside seconds.
import { describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/lifecycle';
import { rateWindowMs, recentArrivals } from '@/lib/alarms/evaluate-alarms';
import { RULES } from '@/lib/model/alarm-rules';
import { MINUTE, SECOND } from '@/lib/clock';
import { pg } from '@/lib/db';
import { recordDeadLetters } from '@/lib/intake/record-dead-letters';
import { deadLetter, demoWorld } from './sla-fixtures';

type Figures = Record<string, { windows: number[]; transient: number[]; clusters: Record<string, number>; classes: Record<string, number> }>;

/** The figures counted from dead_letters, as the evaluation counted them before the per-second table. */
async function counted(now: Date): Promise<Figures> {
  const windowMs = rateWindowMs();
  const windows = Math.ceil(RULES.classifyWindowMs / windowMs);
  const rows = await pg()<{ source_id: string; cluster_id: string | null; error_class: string; w: number; n: number }[]>`
    SELECT source_id, cluster_id, error_class, floor(extract(epoch FROM (${now}::timestamptz - dead_at)) * 1000 / ${windowMs})::int AS w, count(*)::int AS n
    FROM dead_letters
    WHERE dead_at > ${now}::timestamptz - ${`${RULES.classifyWindowMs} milliseconds`}::interval AND dead_at <= ${now}::timestamptz
    GROUP BY 1, 2, 3, 4`;
  const out: Figures = {};
  for (const r of rows) {
    const f = (out[r.source_id] ??= { windows: new Array<number>(windows).fill(0), transient: new Array<number>(windows).fill(0), clusters: {}, classes: {} });
    f.windows[Math.min(r.w, windows - 1)]! += r.n;
    if (r.error_class === 'transient') f.transient[Math.min(r.w, windows - 1)]! += r.n;
    f.clusters[r.cluster_id ?? 'none'] = (f.clusters[r.cluster_id ?? 'none'] ?? 0) + r.n;
    f.classes[r.error_class] = (f.classes[r.error_class] ?? 0) + r.n;
  }
  return out;
}

async function read(now: Date): Promise<Figures> {
  const out: Figures = {};
  for (const [source, a] of await recentArrivals(now)) {
    const clusters: Record<string, number> = {};
    for (const c of a.clusterCounts) clusters[c.clusterId ?? 'none'] = c.count;
    const classes = Object.fromEntries(Object.entries(a.classCounts ?? {}).filter(([, n]) => n !== 0));
    if (a.windowCounts.some((n) => n !== 0)) out[source] = { windows: a.windowCounts, transient: a.transientCounts!, clusters, classes };
  }
  return out;
}

describe('recent arrivals for the alarms', () => {
  freshDatabase();

  it('equal a count of the dead letters at every evaluation time, after moves, time changes and deletes', async () => {
    const { sources } = await demoWorld();
    const base = Date.now() - 70 * MINUTE;
    // Dead letters at odd milliseconds over 70 minutes, two causes per source, several per second.
    const at = (i: number) => new Date(base + i * 1_337);
    for (const source of [sources.payments, sources.orders]) {
      await recordDeadLetters(
        source,
        Array.from({ length: 3_000 }, (_, i) =>
          deadLetter({
            deadAt: at(i),
            errorType: i % 3 ? 'GatewayError' : 'ValidationError',
            errorMessage: i % 3 ? 'gateway returned 503' : 'amount must be positive',
          }),
        ),
      );
    }
    // Evaluation times whose window edges fall on and between the stored milliseconds.
    const times = [0, 1, 337, 999, 1_336, 1_337, 60_000 + 500].map((ms) => new Date(base + 65 * MINUTE + ms));
    for (const now of times) expect(await read(now)).toEqual(await counted(now));
    // Both classes are there: the 503s transient, the validation errors permanent.
    expect(Object.values(await read(times[0]!)).map((f) => Object.keys(f.classes).sort())).toEqual([
      ['permanent', 'transient'],
      ['permanent', 'transient'],
    ]);

    // A cluster move (a split or a correction), a death moved in time, and deletes.
    const [moved] = await pg()<{ id: string }[]>`SELECT id FROM clusters WHERE error_type = 'ValidationError' LIMIT 1`;
    const [other] = await pg()<{ id: string }[]>`SELECT id FROM clusters WHERE error_type = 'GatewayError' LIMIT 1`;
    await pg()`UPDATE dead_letters SET cluster_id = ${other!.id}::uuid WHERE cluster_id = ${moved!.id}::uuid AND id % 2 = 0`;
    await pg()`UPDATE dead_letters SET dead_at = dead_at - interval '7 minutes' WHERE id % 5 = 0`;
    await pg()`DELETE FROM dead_letters WHERE id % 7 = 0`;
    for (const now of times) expect(await read(now)).toEqual(await counted(now));
  });

  it('keeps nothing for a bulk load of history, and forgets what no evaluation reads any more', async () => {
    const { sources } = await demoWorld();
    const now = Date.now();
    await recordDeadLetters(
      sources.orders,
      Array.from({ length: 500 }, (_, i) =>
        deadLetter({ deadAt: new Date(now - 30 * 86_400_000 + i * SECOND), errorType: 'OldError', errorMessage: 'from last month' }),
      ).concat(Array.from({ length: 20 }, (_, i) => deadLetter({ deadAt: new Date(now - i * SECOND), errorType: 'NewError', errorMessage: 'just now' }))),
    );
    // Three hours ago, on its own: counted by its statement (a clock in the past sees its rows), then forgotten.
    await recordDeadLetters(
      sources.orders,
      Array.from({ length: 10 }, (_, i) =>
        deadLetter({ deadAt: new Date(now - 3 * 3_600_000 + i * SECOND), errorType: 'OldError', errorMessage: 'three hours ago' }),
      ),
    );
    await recentArrivals(new Date(now));
    const [kept] = await pg()<{ n: number; oldest: Date | null }[]>`SELECT coalesce(sum(count), 0)::int AS n, min(second) AS oldest FROM dead_letter_arrivals`;
    expect(kept!.n).toBe(20);
    expect(kept!.oldest!.getTime()).toBeGreaterThan(now - 2 * 3_600_000);
    expect(await read(new Date(now))).toEqual(await counted(new Date(now)));
  });
});
