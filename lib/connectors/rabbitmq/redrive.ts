// RabbitMQ as a redrive destination: a confirm channel publishes each dead letter back to where it
// first died (the exchange and routing keys of that x-death entry) or to the source's target queue,
// with `mandatory`, so a message no queue takes comes back (basic.return) instead of vanishing. A
// publish the broker refuses (nack, or returned unroutable) is the message's failure; a connection
// that is down is the infrastructure's (the runner waits and retries; the breaker does not count it).
import type { ChannelModel, ConfirmChannel, Message } from 'amqplib';
import { log } from '@/lib/log';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/redrive/destinations';
import type { ConnectorSource } from '../types';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp, describeEndpoint } from './connection';
import { TRIAGE_HEADERS, redrivePublish, redriveRoute } from './message';

export function rabbitmqDestination(source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>): RedriveDestination {
  const { url } = source.secret;
  let conn: ChannelModel | null = null;
  let ch: ConfirmChannel | null = null;
  let opening: Promise<ConfirmChannel> | null = null;
  // Returned (unroutable) publishes by dead letter id; RabbitMQ sends basic.return before the confirm.
  const returned = new Map<string, Message>();

  async function channel(): Promise<ConfirmChannel> {
    if (ch) return ch;
    opening ??= (async () => {
      const c = await connectAmqp(url, `triage redrive ${source.name}`);
      const confirm = await c.createConfirmChannel();
      confirm.on('error', () => {});
      confirm.on('return', (m: Message) => {
        const id = m.properties.headers?.[TRIAGE_HEADERS.deadLetterId];
        if (id !== undefined) returned.set(String(id), m);
      });
      const drop = () => {
        if (ch === confirm) ch = null;
        if (conn === c) conn = null;
      };
      confirm.on('close', drop);
      c.on('close', drop);
      conn = c;
      ch = confirm;
      return confirm;
    })().finally(() => (opening = null));
    return opening;
  }

  async function publishOne(confirm: ConfirmChannel, m: OutgoingRedrive): Promise<DeliveryResult> {
    // From the original's stored headers: an edited copy cannot send itself elsewhere.
    const route = redriveRoute(m.origin, source.config.targetQueue);
    if (!route) return { ok: false, error: 'No x-death entry says where this message came from; set a target queue on the source', failure: 'message' };
    let content: Buffer;
    let options;
    try {
      ({ content, options } = redrivePublish(m));
    } catch (err) {
      return { ok: false, error: `Cannot build the message: ${err instanceof Error ? err.message : String(err)}`, failure: 'message' };
    }
    if (route.cc.length) options.CC = route.cc;
    const id = m.deadLetterId.toString();
    returned.delete(id);
    return new Promise<DeliveryResult>((resolve) => {
      try {
        confirm.publish(route.exchange, route.routingKey, content, options, (err: unknown) => {
          const back = returned.get(id);
          returned.delete(id);
          if (back) {
            const where = route.exchange ? `exchange "${route.exchange}" with routing key "${route.routingKey}"` : `queue "${route.routingKey}"`;
            resolve({ ok: false, error: `Unroutable: no queue is bound to ${where}`, failure: 'message' });
          } else if (err) {
            // A nack is the broker's refusal of this message; "channel closed" is the connection's failure.
            const closed = /closed/i.test(String((err as Error)?.message ?? err));
            resolve({ ok: false, error: closed ? `RabbitMQ connection lost during the publish` : `RabbitMQ refused the message (nack)`, failure: closed ? 'infrastructure' : 'message' });
          } else resolve({ ok: true, acknowledged: false });
        });
      } catch (err) {
        // amqplib throws synchronously for a closed channel, or for headers past its 64 KiB table buffer.
        const closed = /closed/i.test(String((err as Error)?.message ?? err));
        resolve({ ok: false, error: closed ? 'RabbitMQ connection lost' : `Cannot publish: ${(err as Error)?.message ?? String(err)}`, failure: closed ? 'infrastructure' : 'message' });
      }
    });
  }

  return {
    description: source.config.targetQueue
      ? `RabbitMQ ${describeEndpoint(url)}, queue "${source.config.targetQueue}"`
      : `RabbitMQ ${describeEndpoint(url)}, each message's original exchange`,
    failures: 'infrastructure',
    async deliver(batch: OutgoingRedrive[]): Promise<DeliveryResult[]> {
      let confirm: ConfirmChannel;
      try {
        confirm = await channel();
      } catch (err) {
        const error = amqpError(err, url).message;
        return batch.map(() => ({ ok: false, error, failure: 'infrastructure' as const }));
      }
      // Published in order, confirmed together: one round trip's wait for the batch.
      return Promise.all(batch.map((m) => publishOne(confirm, m)));
    },
    async close(): Promise<void> {
      const c = conn;
      conn = null;
      ch = null;
      await c?.close().catch((err: unknown) => log.debug({ err, source: source.name }, 'AMQP connection already closed'));
    },
  };
}
