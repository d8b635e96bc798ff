// The demo's consumers, telling seed 002's story (fast, no real I/O beyond the demo switches):
// - orders: v1 rejects any field it does not know, so orders carrying "gift" are poison (a
//   permanent schema error: Rejected at once); v2 ignores unknown fields, so a redrive after the
//   deploy succeeds;
// - payments: the payment gateway answers 503 during an outage: retried with backoff, then parked
//   as a wave of MaxReceives dead letters that all succeed once the gateway is back;
// - notifications: some loans point at a member who does not exist: an error nobody classified,
//   so it is retried until the receive count parks it; while the member service is down (only in
//   the demo's history), every notice fails with its 503 and is parked the same way.
import { systemClock, type Clock } from '@/lib/clock';
import type { HandlerRegistry, ReceivedMessage, SourceHandler } from '@/lib/runtime';
import { demoHandlerVersion, paymentsDownUntil, type HandlerVersion } from './settings';

/**
 * What the handlers see beyond the message: the deployed version, the payments downstream and the
 * time. The consumers see the live one; the demo history (lib/demo/past) runs the same handlers in
 * a world of its own, so its dead letters carry the very errors and stacks the live ones do.
 */
export interface DemoWorld {
  handlerVersion(): Promise<HandlerVersion>;
  /** Until when a downstream answers 503, if it is down. */
  outageUntil(downstream: Downstream): Promise<Date | null>;
  clock: Clock;
}

export type Downstream = 'payment-gateway' | 'member-service';

// The live demo takes the payment gateway down now and then (the producer's switch); its member
// service stays up: that outage is one of the history's.
const LIVE: DemoWorld = {
  handlerVersion: demoHandlerVersion,
  outageUntil: async (downstream) => (downstream === 'payment-gateway' ? paymentsDownUntil() : null),
  clock: systemClock,
};

const isDown = async (world: DemoWorld, downstream: Downstream) => {
  const until = await world.outageUntil(downstream);
  return until !== null && until.getTime() > world.clock.now().getTime();
};

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

class MemberServiceUnavailable extends Error {
  readonly status = 503;
  constructor(message: string) {
    super(message);
    this.name = 'MemberServiceUnavailable';
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

async function handleOrder(world: DemoWorld, m: ReceivedMessage): Promise<void> {
  const order = json(m);
  if (typeof order.order !== 'number' || typeof order.customer !== 'string') {
    throw new OrderSchemaError('an order needs a numeric "order" and a "customer"');
  }
  if ((await world.handlerVersion()) === 'v1') {
    const unknown = Object.keys(order).find((k) => !ORDER_FIELDS.has(k));
    if (unknown) throw new OrderSchemaError(`unknown field "${unknown}" in order ${order.order}`);
  }
}

async function capturePayment(world: DemoWorld, m: ReceivedMessage): Promise<void> {
  const payment = json(m);
  if (await isDown(world, 'payment-gateway')) {
    throw new PaymentGatewayError(`payment gateway answered 503 Service Unavailable for payment ${String(payment.payment)}`, 503);
  }
}

/** Members 1000–1999 exist; the demo producer points a few loans elsewhere. */
const memberExists = (member: number) => member >= 1000 && member < 2000;

async function notifyMember(world: DemoWorld, m: ReceivedMessage): Promise<void> {
  const n = json(m);
  const member = Number(n.member);
  if (await isDown(world, 'member-service')) throw new MemberServiceUnavailable(`member service answered 503 Service Unavailable for member ${member}`);
  if (!memberExists(member)) throw new MemberNotFound(`member ${member} not found for loan ${String(n.loan)}`);
}

/** The demo's handlers in `world`: the consumer worker's are in the live one (demoHandlers). */
export function demoHandlersIn(world: DemoWorld): HandlerRegistry {
  const handlers = new Map<string, SourceHandler>([
    ['orders', { handle: (m) => handleOrder(world, m), consumerName: 'orders-handler', consumerVersion: world.handlerVersion }],
    ['payments', { handle: (m) => capturePayment(world, m), consumerName: 'payments-capture', consumerVersion: '1.0' }],
    ['notifications', { handle: (m) => notifyMember(world, m), consumerName: 'loan-notifier', consumerVersion: '1.0' }],
  ]);
  return (sourceName) => handlers.get(sourceName);
}

/** The consumer worker's handlers: the demo's sources; other sources have none in this process. */
export const demoHandlers: HandlerRegistry = demoHandlersIn(LIVE);
