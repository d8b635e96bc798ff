// The notifications' past, the one a lead has to look at: loan notices for members who do not
// exist trickle in (about one a day), and support archives them in a weekly review, so the last
// twelve days' are still open: some past the 7-day deadline, one near it. Reminders scheduled when
// their loans were taken, five weeks ago, came due yesterday for members since deleted: on the
// enqueue clock they expire before their deadline. And 17 days ago the member service was down
// for ten minutes: a wave of notices parked as one cause; the next day support started a redrive,
// and the lead cancelled it (the member service team had not given the all-clear). That wave is
// still open, long past its deadline, in the inbox beside today's poison.
import { DAY, HOUR, MINUTE, SECOND } from '@/lib/clock';
import { decideDeadLetter, decideSelection } from '@/lib/deadletters/decide';
import { cancelRedrive } from '@/lib/redrive';
import { busyThrough, consumerDuring, outageWave, outageWindow, redriveWave } from './outage-wave';
import type { PastMessage } from './past-consumer';
import type { PastContext, PastEvent, SourceHistory, Span } from './timeline';

const outageOf = (span: Span) => outageWindow(span, 17 * DAY - 2 * HOUR, 10 * MINUTE);
const WAVE = 120;
/** A missing member's notice every 20 hours, the latest 3 hours ago. */
const TRICKLE_EVERY = 20 * HOUR;

function notice(loan: number, member: number, enqueuedAt: Date, template = 'payment-due'): PastMessage {
  return { messageId: `notice-${loan}`, body: { loan, member, template }, enqueuedAt, correlationId: `trace-${loan}` };
}

export const notificationsHistory: SourceHistory = {
  source: 'notifications',
  policy: { retentionSeconds: 40 * 86_400 },
  busy: (span) => [busyThrough(outageOf(span))],
  events(span) {
    const outage = outageOf(span);
    const deliver = consumerDuring(outage, 'member-service');
    const events: PastEvent[] = [];
    const missing: { id: bigint; at: Date }[] = [];
    const wave: bigint[] = [];

    for (let k = 0, t = span.end.getTime() - 3 * HOUR; t > span.start.getTime() + HOUR; k++, t -= TRICKLE_EVERY) {
      const when = new Date(t);
      const message = notice(52_000 + k, 9_000 + ((k * 37) % 900), new Date(t - SECOND));
      events.push({
        at: when,
        what: 'notifications: a notice for a missing member',
        run: async (ctx) => missing.push(...(await ctx.park('notifications', deliver, [{ message, at: when }])).map((id) => ({ id, at: when }))),
      });
    }

    const dueAt = new Date(span.end.getTime() - 26 * HOUR);
    const scheduledAt = new Date(span.end.getTime() - 37 * DAY - 12 * HOUR);
    events.push({
      at: dueAt,
      what: 'notifications: reminders scheduled five weeks ago come due',
      run: (ctx) =>
        ctx.park(
          'notifications',
          deliver,
          [0, 1, 2].map((i) => ({ message: notice(48_100 + i, 9_500 + i, scheduledAt, 'reminder-scheduled'), at: new Date(dueAt.getTime() + i * MINUTE) })),
        ),
    });

    const review = async (ctx: PastContext) => {
      const due = ctx.clock.now().getTime() - 2 * DAY;
      const ids = missing.filter((m) => m.at.getTime() < due).map((m) => m.id);
      if (ids.length === 0) return;
      missing.splice(0, missing.length, ...missing.filter((m) => m.at.getTime() >= due));
      await decideSelection(
        ctx.actor,
        'archive',
        { ids: ids.map(String) },
        'weekly review: the members were deleted before their notices went out; nothing left to send',
        ctx.clock,
      );
    };
    for (const daysAgo of [24, 17, 10])
      events.push({ at: new Date(span.end.getTime() - daysAgo * DAY + 8 * HOUR), what: 'notifications: weekly review', run: review });

    events.push({
      at: new Date(span.end.getTime() - 15 * DAY + 4 * HOUR),
      what: 'notifications: the lead discards a notice on request',
      run: async (ctx) => {
        const m = missing.shift();
        if (m) await decideDeadLetter(ctx.actor, 'discard', String(m.id), 'the member asked to be forgotten (GDPR art. 17): payload deleted', ctx.clock);
      },
    });

    // Notices every 5 s through the outage, parked minute by minute.
    events.push(
      ...outageWave(
        {
          source: 'notifications',
          outage,
          count: WAVE,
          deliver,
          messageOf: (n, when) => notice(50_000 + n, 1_000 + ((n * 7) % 1000), new Date(when.getTime() - SECOND)),
          what: 'notifications: notices parked during the member service outage',
        },
        wave,
      ),
    );
    let taskId = '';
    events.push({
      at: new Date(outage.from.getTime() + 20 * HOUR),
      what: 'notifications: support starts a redrive of the wave',
      run: async (ctx) => {
        const task = await redriveWave(ctx, 'notifications', wave, { ratePerSecond: 10, reason: 'member service looks healthy again' });
        taskId = task.id;
      },
    });
    events.push({
      at: new Date(outage.from.getTime() + 20 * HOUR + 12 * MINUTE),
      what: 'notifications: the lead cancels it',
      run: (ctx) => cancelRedrive(ctx.actor, taskId, { reason: 'the member service team has not given the all-clear; their fix ships next sprint' }, ctx.clock),
    });
    return events;
  },
};
