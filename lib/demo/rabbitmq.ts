// The demo's RabbitMQ source: `shipments` run on the local RabbitMQ the way a Spring team runs them.
// A producer publishes shipment events to an exchange; a consumer handles them and, for a poison
// message, does what Spring AMQP's RepublishMessageRecoverer does: republishes it to the dead-letter
// exchange with x-exception-message / -stacktrace / -fqcn and the original exchange and routing key,
// then acknowledges it. Triage's connector imports the dead-letter queue; a redrive publishes back to
// the original exchange, where the consumer meets the message again. Like the orders handler, v1
// refuses fields it does not know ("gift"), v2 (`triage demo deploy v2`) accepts them.
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { log } from '@/lib/log';
import { ensureDemoSource } from './demo-source';
import { demoHandlerVersion } from './settings';

export const DEMO_RABBITMQ = {
  source: 'shipments-rmq',
  team: 'commerce',
  exchange: 'demo.shipments',
  routingKey: 'shipment.created',
  queue: 'demo.shipments',
  deadLetterExchange: 'demo.shipments.dlx',
  deadLetterQueue: 'demo.shipments.dlq',
} as const;

const SHIPMENT_FIELDS = new Set(['shipment', 'order', 'carrier', 'weightKg']);
const EXCEPTION = 'com.triage.demo.shipping.ShipmentSchemaException';

/** The exchanges and queues, declared idempotently (as a Spring app's RabbitAdmin would). */
export async function declareDemoTopology(ch: Channel): Promise<void> {
  const d = DEMO_RABBITMQ;
  await ch.assertExchange(d.exchange, 'direct', { durable: true });
  await ch.assertExchange(d.deadLetterExchange, 'fanout', { durable: true });
  await ch.assertQueue(d.queue, { durable: true, deadLetterExchange: d.deadLetterExchange });
  await ch.bindQueue(d.queue, d.exchange, d.routingKey);
  await ch.assertQueue(d.deadLetterQueue, { durable: true });
  await ch.bindQueue(d.deadLetterQueue, d.deadLetterExchange, '');
}

/** The Triage source reading the dead-letter queue; created once, by the system (audited). */
export function ensureDemoRabbitmqSource(url: string): Promise<void> {
  return ensureDemoSource(
    {
      name: DEMO_RABBITMQ.source,
      team: DEMO_RABBITMQ.team,
      kind: 'rabbitmq',
      description: 'Shipments on the local RabbitMQ (Spring-style dead-letter exchange)',
      // The consumer's queue, watched beside the DLQ (depth, consumers) on the source page and the SLA board.
      connection: { queue: DEMO_RABBITMQ.deadLetterQueue, sourceQueue: DEMO_RABBITMQ.queue },
    },
    url,
    'RabbitMQ',
  );
}

/** Why the consumer refuses a shipment, or null when it handles it. */
async function refusal(body: Buffer): Promise<string | null> {
  let shipment: unknown;
  try {
    shipment = JSON.parse(body.toString('utf8'));
  } catch {
    return 'the message is not JSON';
  }
  if (typeof shipment !== 'object' || shipment === null) return 'the message is not a JSON object';
  const s = shipment as Record<string, unknown>;
  if ((await demoHandlerVersion()) === 'v1') {
    const unknown = Object.keys(s).find((k) => !SHIPMENT_FIELDS.has(k));
    if (unknown) return `Unrecognized field "${unknown}" in shipment ${String(s.shipment)}`;
  }
  return null;
}

function stackTrace(message: string): string {
  return [
    `${EXCEPTION}: ${message}`,
    '\tat com.triage.demo.shipping.ShipmentListener.onMessage(ShipmentListener.java:42)',
    '\tat org.springframework.amqp.rabbit.listener.adapter.MessagingMessageListenerAdapter.invokeHandler(MessagingMessageListenerAdapter.java:272)',
    '\tat org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer.doInvokeListener(AbstractMessageListenerContainer.java:1664)',
  ].join('\n');
}

/** RepublishMessageRecoverer: the failed message to the dead-letter exchange with the exception, then acknowledged. */
async function consume(ch: Channel, m: ConsumeMessage): Promise<void> {
  const why = await refusal(m.content);
  if (why === null) return ch.ack(m);
  ch.publish(DEMO_RABBITMQ.deadLetterExchange, m.fields.routingKey, m.content, {
    ...m.properties,
    headers: {
      ...(m.properties.headers ?? {}),
      'x-exception-message': why,
      'x-exception-stacktrace': stackTrace(why),
      'x-exception-fqcn': EXCEPTION,
      'x-original-exchange': m.fields.exchange,
      'x-original-routingKey': m.fields.routingKey,
    },
  });
  ch.ack(m);
}

export interface DemoRabbitmq {
  /** Publish n shipments, every `giftEvery`-th with the field v1 refuses. */
  publish(n: number, giftEvery?: number): void;
  /** Resolves when the connection is lost (RabbitMQ stopped) or closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

let seq = 0;

/** Connects (throws when RabbitMQ is not reachable), declares the topology and starts the consumer. */
export async function startDemoRabbitmq(url: string): Promise<DemoRabbitmq> {
  const conn: ChannelModel = await amqp.connect(url);
  const closed = new Promise<void>((resolve) => conn.once('close', () => resolve()));
  conn.on('error', (err: unknown) => log.warn({ err: String(err) }, 'demo RabbitMQ connection error'));
  const ch = await conn.createChannel();
  await declareDemoTopology(ch);
  await ch.prefetch(20);
  await ch.consume(DEMO_RABBITMQ.queue, (m) => {
    if (m) consume(ch, m).catch((err: unknown) => log.warn({ err: String(err) }, 'demo shipment consumer failed; message left unacknowledged'));
  });
  return {
    closed,
    publish(n, giftEvery = 5) {
      for (let i = 0; i < n; i++) {
        seq++;
        const id = `shp-${Date.now().toString(36)}-${seq}`;
        const shipment = {
          shipment: id,
          order: 1000 + seq,
          carrier: seq % 2 ? 'DHL' : 'UPS',
          weightKg: (seq % 7) + 0.5,
          ...(seq % giftEvery === 0 ? { gift: true } : {}),
        };
        ch.publish(DEMO_RABBITMQ.exchange, DEMO_RABBITMQ.routingKey, Buffer.from(JSON.stringify(shipment)), {
          messageId: id,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
          persistent: true,
        });
      }
    },
    async close() {
      await conn.close().catch(() => undefined);
    },
  };
}
