// The orders' past: handler v1 rejects every order carrying the field it does not know ("gift"),
// a steady trickle; support archives them every few days (the customers order again without the
// note); once a customer typed a card number into an order note and the lead discarded that
// payload. Nothing of it stays open: the live producer's poison starts today's backlog.
import { DAY, HOUR } from '@/lib/clock';
import { decideDeadLetter, decideSelection } from '@/lib/deadletters/decide';
import { pastConsumer, type PastMessage } from './past-consumer';
import type { PastContext, PastEvent, SourceHistory, Span } from './timeline';

const at = (span: Span, beforeEnd: number) => new Date(span.end.getTime() - beforeEnd);

function order(n: number, when: Date, extra: Record<string, unknown>): PastMessage {
  const customer = `c-${100 + (n % 37)}`;
  return {
    messageId: `order-${n}`,
    body: { order: n, customer, items: [{ sku: `SKU-${n % 13}`, qty: 1 + (n % 3) }], total: 19.9 + (n % 50), currency: 'EUR', ...extra },
    enqueuedAt: new Date(when.getTime() - 2_000),
    key: customer,
    idempotencyKey: `order-${n}`,
    correlationId: `trace-${n}`,
  };
}

export const ordersHistory: SourceHistory = {
  source: 'orders',
  policy: { retentionSeconds: 40 * 86_400 },
  events(span) {
    const deliver = pastConsumer({ handlerVersion: 'v1', outages: [] });
    const open: bigint[] = [];
    const events: PastEvent[] = [];
    let n = 31_000;
    for (let t = span.start.getTime() + 20 * HOUR; t < span.end.getTime() - 12 * HOUR; t += 16 * HOUR) {
      const when = new Date(t);
      const message = order(n++, when, { gift: true });
      events.push({ at: when, what: 'orders: a gift order', run: async (ctx) => open.push(...(await ctx.park('orders', deliver, [{ message, at: when }]))) });
    }
    const archive = async (ctx: PastContext) => {
      const ids = open.splice(0);
      if (ids.length === 0) return;
      await decideSelection(
        ctx.actor,
        'archive',
        { ids: ids.map(String) },
        'gift orders are not supported by handler v1; the customers were asked to order again without the gift note',
        ctx.clock,
      );
    };
    for (let t = span.start.getTime() + 3 * DAY + 9 * HOUR; t < span.end.getTime() - DAY; t += 3 * DAY) {
      events.push({ at: new Date(t), what: 'orders: support archives the gift orders', run: archive });
    }
    events.push({ at: at(span, HOUR), what: 'orders: support archives the last gift orders', run: archive });

    const cardAt = at(span, 20 * DAY + 5 * HOUR);
    const card = order(30_999, cardAt, { note: 'please charge card 4111 1111 1111 1111 exp 09/29' });
    let cardId: bigint | undefined;
    events.push({
      at: cardAt,
      what: 'orders: an order with a card number in its note',
      run: async (ctx) => ([cardId] = await ctx.park('orders', deliver, [{ message: card, at: cardAt }])),
    });
    events.push({
      at: new Date(cardAt.getTime() + 3 * HOUR),
      what: 'orders: the lead discards the card number',
      run: (ctx) =>
        decideDeadLetter(
          ctx.actor,
          'discard',
          String(cardId),
          'a card number in the order note: payload deleted (PCI DSS), the customer was asked to order again',
          ctx.clock,
        ),
    });
    return events;
  },
};
