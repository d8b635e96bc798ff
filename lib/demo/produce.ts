// The demo producer's messages. Tests call produceDemoBatch() directly (the demo worker is not run
// by the browser tests, where a background producer would make them nondeterministic).
import { randomBytes } from 'node:crypto';
import { sendMany, type OutgoingMessage } from '@/lib/runtime';
import { startPaymentsOutage } from './settings';

export interface DemoBatchOptions {
  orders?: number;
  payments?: number;
  notifications?: number;
  /** Every n-th order carries the unknown field "gift" (0: none). Default 5. */
  giftEvery?: number;
  /** Every n-th notification is for a loan whose member does not exist (0: none). Default 4. */
  missingMemberEvery?: number;
  /** Take the payment gateway down for this many seconds before sending (an outage wave). */
  paymentsOutageSeconds?: number;
}

export interface DemoGroup {
  messageIds: string[];
  /** The ones expected to be dead-lettered: orders with "gift" (under handler v1), notifications for a missing member, payments sent into an outage. */
  failing: string[];
}

export interface DemoBatch {
  orders: DemoGroup;
  payments: DemoGroup;
  notifications: DemoGroup;
  paymentsDownUntil: Date | null;
}

const enc = new TextEncoder();
const JSON_HEADERS = { 'content-type': 'application/json' };

// Business numbers (order 13, loan 57…) run on across batches; each kind counts its own messages
// so that "every n-th" poison holds across small batches too.
let sequence = Math.floor(Date.now() / 1000) % 100_000;
const sentOfKind = { orders: 0, payments: 0, notifications: 0 };

function build(kind: keyof typeof sentOfKind, count: number, make: (n: number, nth: number) => { message: OutgoingMessage; failing: boolean }) {
  const tag = randomBytes(3).toString('hex');
  return Array.from({ length: count }, () => {
    const { message, failing } = make(++sequence, ++sentOfKind[kind]);
    return { message: { ...message, messageId: `${message.messageId}-${tag}` }, failing };
  });
}

async function sendGroup(source: string, made: ReturnType<typeof build>, allFailing = false): Promise<DemoGroup> {
  if (made.length === 0) return { messageIds: [], failing: [] };
  const ids = await sendMany(
    source,
    made.map((m) => m.message),
  );
  return { messageIds: ids, failing: ids.filter((_, i) => allFailing || made[i]!.failing) };
}

export async function produceDemoBatch(opts: DemoBatchOptions = {}): Promise<DemoBatch> {
  const giftEvery = opts.giftEvery ?? 5;
  const missingEvery = opts.missingMemberEvery ?? 4;
  const paymentsDownUntil = opts.paymentsOutageSeconds ? await startPaymentsOutage(opts.paymentsOutageSeconds) : null;

  const orders = build('orders', opts.orders ?? 10, (n, nth) => {
    const gift = giftEvery > 0 && nth % giftEvery === 0;
    const customer = `c-${100 + (n % 37)}`;
    const order = {
      order: n,
      customer,
      items: [{ sku: `SKU-${n % 13}`, qty: 1 + (n % 3) }],
      total: 19.9 + (n % 50),
      currency: 'EUR',
      ...(gift ? { gift: true } : {}),
    };
    return {
      message: {
        messageId: `order-${n}`,
        body: enc.encode(JSON.stringify(order)),
        headers: JSON_HEADERS,
        key: customer,
        idempotencyKey: `order-${n}`,
        correlationId: `trace-${n}`,
      },
      failing: gift,
    };
  });
  const payments = build('payments', opts.payments ?? 5, (n) => {
    const payment = { payment: n, order: n - 3, amount: 10 + (n % 90), currency: 'EUR' };
    return {
      message: {
        messageId: `payment-${n}`,
        body: enc.encode(JSON.stringify(payment)),
        headers: JSON_HEADERS,
        idempotencyKey: `capture-${n}`,
        correlationId: `trace-${n}`,
      },
      failing: false,
    };
  });
  const notifications = build('notifications', opts.notifications ?? 5, (n, nth) => {
    const missing = missingEvery > 0 && nth % missingEvery === 0;
    const member = missing ? 9000 + (n % 900) : 1000 + (n % 1000);
    return {
      message: {
        messageId: `notice-${n}`,
        body: enc.encode(JSON.stringify({ loan: n, member, template: 'payment-due' })),
        headers: JSON_HEADERS,
        correlationId: `trace-${n}`,
      },
      failing: missing,
    };
  });

  return {
    orders: await sendGroup('orders', orders),
    payments: await sendGroup('payments', payments, paymentsDownUntil !== null),
    notifications: await sendGroup('notifications', notifications),
    paymentsDownUntil,
  };
}
