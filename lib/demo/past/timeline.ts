// The demo's past, played forward. Each source's history (one module per source, see index.ts)
// lists its events: messages its consumer parked then, and what people decided about them. The
// timeline merges them with the maintenance worker's runs (alarms, rollups, retention, as
// workers/maintenance.ts runs them) and plays them in time order on a simulated clock, each through
// the same lib/ function the live system uses, so every row, chart and audit event is what the
// live product would have written at that time. The audit chain is in insertion order, so playing
// in time order, before anything live, keeps the trail's times rising with it.
import { evaluateAlarms } from '@/lib/alarms/evaluate-alarms';
import type { Principal } from '@/lib/auth';
import { DAY, HOUR, MINUTE, type Clock } from '@/lib/clock';
import { db } from '@/lib/db';
import { recordDeadLetters, type NewDeadLetter } from '@/lib/intake/record-dead-letters';
import { sweepExpired } from '@/lib/retention/sweep-expired';
import { computeRollups } from '@/lib/rollups/compute-rollups';
import { refreshAgeStats } from '@/lib/sla/age-stats';
import { updateSourcePolicy, type PolicyInput } from '@/lib/sources/update-policy';
import type { ConsumerPolicy, PastDelivery, PastMessage } from './past-consumer';

export interface PastSource extends ConsumerPolicy {
  id: string;
  name: string;
  retentionSeconds: number;
}

export interface PastContext {
  /** The simulated time: the event's moment, running on at real speed while the event takes. */
  clock: Clock;
  /** The demo seeder, named as the actor of everything the history writes. */
  actor: Principal;
  source(name: string): Promise<PastSource>;
  /** Deliver messages as the source's consumer did then; the parked ones are recorded through the write path. Their ids, in order. */
  park(source: string, deliver: PastDelivery, deliveries: { message: PastMessage; at: Date }[]): Promise<bigint[]>;
}

export interface PastEvent {
  at: Date;
  what: string;
  run(ctx: PastContext): Promise<unknown>;
}

export interface Span {
  start: Date;
  end: Date;
}

export interface SourceHistory {
  source: string;
  /** The source's policy through the history (set at its start, audited): a retention longer than the history, so none of it expires. */
  policy: PolicyInput;
  events(span: Span): PastEvent[];
  /** Windows (a wave) in which the maintenance runs come every few minutes, so alarms see them as they happened. */
  busy?(span: Span): Span[];
}

/**
 * How often the maintenance worker's runs are played (live: every 15 s), to keep the playing to
 * seconds: alarms, rollups and retention every 12 hours, every 5 minutes in a wave (so the alarms
 * see it as it happened); in the last week the depth is also snapshotted every 2 hours (age stats
 * and rollups only), as often as the 7-day charts show it.
 */
const TICK_MS = 12 * HOUR;
const BUSY_TICK_MS = 5 * MINUTE;
const RECENT_MS = 7 * DAY;
const RECENT_SNAPSHOT_MS = 2 * HOUR;

export interface PastResult {
  events: number;
  ticks: number;
  deadLetters: number;
}

export async function playHistory(histories: SourceHistory[], span: Span, clock: Clock & { jumpTo(at: Date): void }, actor: Principal): Promise<PastResult> {
  let deadLetters = 0;
  const source = async (name: string): Promise<PastSource> =>
    db().source.findUniqueOrThrow({
      where: { name },
      select: { id: true, name: true, retentionSeconds: true, maxReceives: true, backoffBaseMs: true },
    });
  const ctx: PastContext = {
    clock,
    actor,
    source,
    async park(name, deliver, deliveries) {
      const policy = await source(name);
      const parked: NewDeadLetter[] = [];
      for (const d of deliveries) {
        const deadLetter = await deliver(name, policy, d.message, d.at);
        if (deadLetter) parked.push(deadLetter);
      }
      const recorded = await recordDeadLetters(policy, parked, { now: clock.now() });
      deadLetters += recorded.filter((r) => r.created).length;
      return recorded.map((r) => BigInt(r.id));
    },
  };

  const steps: (PastEvent & { order: number })[] = [];
  for (const h of histories) {
    steps.push({ at: span.start, what: `${h.source}: policy`, order: 0, run: () => updateSourcePolicy(actor, h.source, h.policy, clock) });
    for (const e of h.events(span)) steps.push({ ...e, order: 1 });
  }
  // The maintenance worker's runs, as workers/maintenance.ts schedules them, after any event of the same moment.
  const tickTimes = new Set<number>();
  for (let t = span.start.getTime() + TICK_MS; t <= span.end.getTime(); t += TICK_MS) tickTimes.add(t);
  for (const h of histories) {
    for (const w of h.busy?.(span) ?? []) for (let t = w.start.getTime(); t <= w.end.getTime(); t += BUSY_TICK_MS) tickTimes.add(t);
  }
  tickTimes.add(span.end.getTime());
  for (const t of tickTimes) {
    steps.push({
      at: new Date(t),
      what: 'maintenance',
      order: 2,
      run: async () => {
        await evaluateAlarms(clock);
        await computeRollups(clock.now());
        await sweepExpired(clock);
      },
    });
  }
  let snapshots = 0;
  for (let t = span.end.getTime() - RECENT_MS; t < span.end.getTime(); t += RECENT_SNAPSHOT_MS) {
    if (tickTimes.has(t)) continue;
    snapshots++;
    steps.push({
      at: new Date(t),
      what: 'depth snapshot',
      order: 2,
      run: async () => {
        await refreshAgeStats(clock.now());
        await computeRollups(clock.now());
      },
    });
  }
  const outside = steps.find((s) => s.at < span.start || s.at > span.end);
  if (outside) throw new Error(`The demo history's event "${outside.what}" lies outside ${span.start.toISOString()}–${span.end.toISOString()}`);
  steps.sort((a, b) => a.at.getTime() - b.at.getTime() || a.order - b.order);
  for (const step of steps) {
    clock.jumpTo(step.at);
    await step.run(ctx);
  }
  return { events: steps.length - tickTimes.size - snapshots, ticks: tickTimes.size + snapshots, deadLetters };
}
