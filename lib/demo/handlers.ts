// The demo's consumers, telling seed 002's story (fast, no real I/O beyond the demo switches):
// - orders: v1 rejects any field it does not know, so orders carrying "gift" are poison (a
//   permanent schema error: Rejected at once); v2 ignores unknown fields, so a redrive after the
//   deploy succeeds;
// - payments: the payment gateway answers 503 during an outage: retried with backoff, then parked
//   as a wave of MaxReceives dead letters that all succeed once the gateway is back;
// - notifications: some loans point at a member who does not exist: an error nobody classified,
//   so it is retried until the receive count parks it.
import type { HandlerRegistry, ReceivedMessage, SourceHandler } from '@/lib/runtime';
import { demoHandlerVersion, paymentsDownUntil } from './settings';

class OrderSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OrderSchemaError';
  }
}

class PaymentGatewayError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'PaymentGatewayError';
  }
}

class MemberNotFound extends Error {
  readonly status = 404;
  constructor(message: string) {
    super(message);
    this.name = 'MemberNotFound';
  }
}

const json = (m: ReceivedMessage): Record<string, unknown> => {
  const value: unknown = JSON.parse(new TextDecoder().decode(m.body)); // SyntaxError: permanent
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OrderSchemaError('the message is not a JSON object');
  return value as Record<string, unknown>;
};

const ORDER_FIELDS = new Set(['order', 'customer', 'items', 'total', 'currency']);

async function handleOrder(m: ReceivedMessage): Promise<void> {
  const order = json(m);
  if (typeof order.order !== 'number' || typeof order.customer !== 'string') {
    throw new OrderSchemaError('an order needs a numeric "order" and a "customer"');
  }
  if ((await demoHandlerVersion()) === 'v1') {
    const unknown = Object.keys(order).find((k) => !ORDER_FIELDS.has(k));
    if (unknown) throw new OrderSchemaError(`unknown field "${unknown}" in order ${order.order}`);
  }
}

async function capturePayment(m: ReceivedMessage): Promise<void> {
  const payment = json(m);
  const downUntil = await paymentsDownUntil();
  if (downUntil && downUntil.getTime() > Date.now()) {
    throw new PaymentGatewayError(`payment gateway answered 503 Service Unavailable for payment ${String(payment.payment)}`, 503);
  }
}

/** Members 1000–1999 exist; the demo producer points a few loans elsewhere. */
const memberExists = (member: number) => member >= 1000 && member < 2000;

async function notifyMember(m: ReceivedMessage): Promise<void> {
  const n = json(m);
  const member = Number(n.member);
  if (!memberExists(member)) throw new MemberNotFound(`member ${member} not found for loan ${String(n.loan)}`);
}

const DEMO_HANDLERS = new Map<string, SourceHandler>([
  ['orders', { handle: handleOrder, consumerName: 'orders-handler', consumerVersion: demoHandlerVersion }],
  ['payments', { handle: capturePayment, consumerName: 'payments-capture', consumerVersion: '1.0' }],
  ['notifications', { handle: notifyMember, consumerName: 'loan-notifier', consumerVersion: '1.0' }],
]);

/** The consumer worker's handlers: the demo's sources; other sources have none in this process. */
export const demoHandlers: HandlerRegistry = (sourceName) => DEMO_HANDLERS.get(sourceName);
