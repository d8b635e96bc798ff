// An outage in a source's past: its messages every few seconds through it, parked minute by minute
// as the consumer gave up on them, so they land as one wave of one cause (a cluster) that a history
// then redrives, or does not.
import { MINUTE } from '@/lib/clock';
import { db } from '@/lib/db';
import { startRedrive } from '@/lib/redrive';
import type { Downstream } from '../handlers';
import { pastConsumer, type PastDelivery, type PastMessage } from './past-consumer';
import type { PastContext, PastEvent, Span } from './timeline';

export interface OutageWave {
  source: string;
  outage: { from: Date; until: Date };
  /** Messages in all, spread evenly over the outage's whole minutes. */
  count: number;
  deliver: PastDelivery;
  /** The wave's `n`th message, sent at `when`. */
  messageOf(n: number, when: Date): PastMessage;
  /** What each minute's event says. */
  what: string;
}

/** An outage that began `ago` before the span's end (a whole minute) and lasted `lasting`. */
/** The demo's handlers (v1) with `downstream` down through `outage`: what parks an outage wave. */
export function consumerDuring(outage: { from: Date; until: Date }, downstream: Downstream): PastDelivery {
  return pastConsumer({ handlerVersion: 'v1', outages: [{ downstream, ...outage }] });
}

export function outageWindow(span: Span, ago: number, lasting: number): { from: Date; until: Date } {
  const from = new Date(span.end.getTime() - ago);
  return { from, until: new Date(from.getTime() + lasting) };
}

/** The outage and the ten minutes after it, a busy window of the history (the alarms see the wave as it happened). */
export function busyThrough(outage: { from: Date; until: Date }): Span {
  return { start: outage.from, end: new Date(outage.until.getTime() + 10 * MINUTE) };
}

/** One event a minute of the outage, each parking that minute's messages; their ids go into `parked`, in order. */
export function outageWave(wave: OutageWave, parked: bigint[]): PastEvent[] {
  const { from, until } = wave.outage;
  const minutes = Math.round((until.getTime() - from.getTime()) / MINUTE);
  const perMinute = wave.count / minutes;
  const every = (until.getTime() - from.getTime()) / wave.count;
  return Array.from({ length: minutes }, (_, minute) => {
    const deliveries = Array.from({ length: perMinute }, (_, i) => {
      const n = minute * perMinute + i;
      const when = new Date(from.getTime() + n * every);
      return { message: wave.messageOf(n, when), at: when };
    });
    return {
      at: new Date(from.getTime() + (minute + 1) * MINUTE),
      what: wave.what,
      run: async (ctx) => parked.push(...(await ctx.park(wave.source, wave.deliver, deliveries))),
    };
  });
}

/** A redrive of the wave, canary first: the cluster its dead letters were grouped into, in its source. */
export async function redriveWave(ctx: PastContext, source: string, parked: bigint[], how: { ratePerSecond: number; reason: string }) {
  const first = await db().deadLetter.findUniqueOrThrow({ where: { id: parked[0]! }, select: { clusterId: true } });
  return startRedrive(
    ctx.actor,
    { selection: { cluster: first.clusterId!, source }, ratePerSecond: how.ratePerSecond, canary: true, reason: how.reason },
    ctx.clock,
  );
}
