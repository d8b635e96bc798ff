// The payments' past: ten days ago the payment gateway was down for a quarter of an hour, and the
// captures sent meanwhile were parked as one wave (the alarms called it an outage: its errors were 503s). Two
// hours later, the gateway back, the wave was redriven, canary first, and every capture went
// through: a finished redrive task, and nothing of payments left open.
import { DAY, HOUR, MINUTE, SECOND } from '@/lib/clock';
import { db } from '@/lib/db';
import { startRedrive } from '@/lib/redrive';
import { runRedriveTask } from '@/lib/redrive/run-task';
import { pastConsumer, pastDestination, type PastMessage } from './past-consumer';
import type { PastEvent, SourceHistory, Span } from './timeline';

const outageOf = (span: Span) => {
  const from = new Date(span.end.getTime() - 10 * DAY + 5 * HOUR);
  return { from, until: new Date(from.getTime() + 15 * MINUTE) };
};
const WAVE = 180;
const REDRIVE_AFTER = 2 * HOUR;

function payment(n: number, when: Date): PastMessage {
  return {
    messageId: `payment-${n}`,
    body: { payment: n, order: n - 3, amount: 10 + (n % 90), currency: 'EUR' },
    enqueuedAt: new Date(when.getTime() - SECOND),
    idempotencyKey: `capture-${n}`,
    correlationId: `trace-${n}`,
  };
}

export const paymentsHistory: SourceHistory = {
  source: 'payments',
  policy: { retentionSeconds: 40 * 86_400 },
  busy: (span) => {
    const o = outageOf(span);
    const redriven = new Date(o.from.getTime() + REDRIVE_AFTER + MINUTE);
    return [
      { start: o.from, end: new Date(o.until.getTime() + 10 * MINUTE) },
      { start: redriven, end: redriven },
    ];
  },
  events(span) {
    const outage = outageOf(span);
    const deliver = pastConsumer({ handlerVersion: 'v1', outages: [{ downstream: 'payment-gateway', ...outage }] });
    const events: PastEvent[] = [];
    const wave: bigint[] = [];
    // Captures every 5 s through the outage, parked minute by minute as the consumer gave up on them.
    const every = (15 * MINUTE) / WAVE;
    for (let minute = 0; minute < 15; minute++) {
      const deliveries = Array.from({ length: WAVE / 15 }, (_, i) => {
        const when = new Date(outage.from.getTime() + (minute * (WAVE / 15) + i) * every);
        return { message: payment(71_000 + minute * (WAVE / 15) + i, when), at: when };
      });
      events.push({
        at: new Date(outage.from.getTime() + (minute + 1) * MINUTE),
        what: 'payments: captures parked during the gateway outage',
        run: async (ctx) => wave.push(...(await ctx.park('payments', deliver, deliveries))),
      });
    }
    events.push({
      at: new Date(outage.from.getTime() + REDRIVE_AFTER),
      what: 'payments: the wave redriven once the gateway is back',
      run: async (ctx) => {
        const first = await db().deadLetter.findUniqueOrThrow({ where: { id: wave[0]! }, select: { clusterId: true } });
        const task = await startRedrive(
          ctx.actor,
          {
            selection: { cluster: first.clusterId!, source: 'payments' },
            ratePerSecond: 500,
            canary: true,
            reason: 'the payment gateway is back (their status page: resolved); redriving the captures parked during the outage',
          },
          ctx.clock,
        );
        const policy = await ctx.source('payments');
        const end = await runRedriveTask(task.id, {
          clock: () => ctx.clock.now().getTime(),
          destination: pastDestination('payments', policy, deliver, ctx.clock),
          statusPollMs: 20,
        });
        if (end !== 'completed') throw new Error(`The history's payments redrive ended ${end}`);
      },
    });
    return events;
  },
};
