// The payments' past: ten days ago the payment gateway was down for a quarter of an hour, and the
// captures sent meanwhile were parked as one wave (the alarms called it an outage: its errors were 503s). Two
// hours later, the gateway back, the wave was redriven, canary first, and every capture went
// through: a finished redrive task, and nothing of payments left open.
import { DAY, HOUR, MINUTE, SECOND } from '@/lib/clock';
import { runRedriveTask } from '@/lib/redrive/run-task';
import { busyThrough, consumerDuring, outageWave, outageWindow, redriveWave } from './outage-wave';
import { pastDestination, type PastMessage } from './past-consumer';
import type { PastEvent, SourceHistory, Span } from './timeline';

const outageOf = (span: Span) => outageWindow(span, 10 * DAY - 5 * HOUR, 15 * MINUTE);
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
    return [busyThrough(o), { start: redriven, end: redriven }];
  },
  events(span) {
    const outage = outageOf(span);
    const deliver = consumerDuring(outage, 'payment-gateway');
    const events: PastEvent[] = [];
    const wave: bigint[] = [];
    // Captures every 5 s through the outage, parked minute by minute as the consumer gave up on them.
    events.push(
      ...outageWave(
        {
          source: 'payments',
          outage,
          count: WAVE,
          deliver,
          messageOf: (n, when) => payment(71_000 + n, when),
          what: 'payments: captures parked during the gateway outage',
        },
        wave,
      ),
    );
    events.push({
      at: new Date(outage.from.getTime() + REDRIVE_AFTER),
      what: 'payments: the wave redriven once the gateway is back',
      run: async (ctx) => {
        const task = await redriveWave(ctx, 'payments', wave, {
          ratePerSecond: 500,
          reason: 'the payment gateway is back (their status page: resolved); redriving the captures parked during the outage',
        });
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
