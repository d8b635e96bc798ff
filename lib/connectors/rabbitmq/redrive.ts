// RabbitMQ as a redrive destination: a confirm channel publishes each dead letter back to where it
// first died (the exchange and routing keys of that x-death entry) or to the source's target queue,
// with `mandatory`, so a message no queue takes comes back (basic.return) instead of vanishing. A
// publish the broker refuses (nack, or returned unroutable) is the message's failure; a connection
// that is down is the infrastructure's (the runner waits and retries; the breaker does not count it);
// an exchange that no longer exists, or credentials or permissions the broker refuses, refuse the
// redrive itself (the task pauses and says what to fix).
import type { ChannelModel, ConfirmChannel, Message } from 'amqplib';
import { log } from '@/lib/log';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import { deliverOver, type ConnectorSource } from '../types';
import type { RabbitmqConfig, RabbitmqSecret } from './config';
import { amqpError, connectAmqp, describeEndpoint, where } from './connection';
import { TRIAGE_HEADERS, redrivePublish, redriveRoute } from './message';

export function rabbitmqDestination(source: ConnectorSource<RabbitmqConfig, RabbitmqSecret>): RedriveDestination {
  const { url } = source.secret;
  let conn: ChannelModel | null = null;
  let ch: ConfirmChannel | null = null;
  let opening: Promise<ConfirmChannel> | null = null;
  // Returned (unroutable) publishes by dead letter id; RabbitMQ sends basic.return before the confirm.
  const returned = new Map<string, Message>();
  // Why the broker closed a channel (its 'error' comes before the pending confirms fail).
  const closedBy = new WeakMap<ConfirmChannel, { code?: number; message?: string }>();

  async function channel(): Promise<ConfirmChannel> {
    if (ch) return ch;
    opening ??= (async () => {
      const c = await connectAmqp(url, `triage redrive ${source.name}`);
      const confirm = await c.createConfirmChannel();
      confirm.on('error', (err: { code?: number; message?: string }) => closedBy.set(confirm, err));
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
            // A nack is the broker's refusal of this message; "channel closed" is the connection's
            // failure, unless the broker closed it to refuse the publish itself.
            const closed = /closed/i.test(String((err as Error)?.message ?? err));
            const refusal = closed ? publishRefusal(closedBy.get(confirm), route.exchange) : null;
            if (refusal) resolve({ ok: false, error: refusal, failure: 'refused' });
            else
              resolve({
                ok: false,
                error: closed ? `RabbitMQ connection lost during the publish` : `RabbitMQ refused the message (nack)`,
                failure: closed ? 'infrastructure' : 'message',
              });
          } else resolve({ ok: true, acknowledged: false });
        });
      } catch (err) {
        // amqplib throws synchronously for a closed channel, or for headers past its 64 KiB table buffer.
        const closed = /closed/i.test(String((err as Error)?.message ?? err));
        resolve({
          ok: false,
          error: closed ? 'RabbitMQ connection lost' : `Cannot publish: ${(err as Error)?.message ?? String(err)}`,
          failure: closed ? 'infrastructure' : 'message',
        });
      }
    });
  }

  /** The fix for a channel the broker closed to refuse a publish (404: no exchange; 403: no permission). */
  function publishRefusal(closed: { code?: number; message?: string } | undefined, exchange: string): string | null {
    if (!closed) return null;
    const { endpoint, vhost, user } = where(url);
    if (closed.code === 404) {
      return `RabbitMQ: exchange "${exchange}" does not exist on virtual host "${vhost}" of ${endpoint}: declare it again (with its bindings), or set a target queue on the source`;
    }
    if (closed.code === 403) {
      return `RabbitMQ: user "${user}" may not publish to exchange "${exchange}" on virtual host "${vhost}" of ${endpoint}: grant it write permission`;
    }
    return null;
  }

  return {
    description: source.config.targetQueue
      ? `RabbitMQ ${describeEndpoint(url)}, queue "${source.config.targetQueue}"`
      : `RabbitMQ ${describeEndpoint(url)}, each message's original exchange`,
    failures: 'infrastructure',
    // Published in order, confirmed together: one round trip's wait for the batch.
    deliver: (batch) => deliverOver(batch, channel, (err) => amqpError(err, url), publishOne),
    async close(): Promise<void> {
      const c = conn;
      conn = null;
      ch = null;
      await c?.close().catch((err: unknown) => log.debug({ err, source: source.name }, 'AMQP connection already closed'));
    },
  };
}
