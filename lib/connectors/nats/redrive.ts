// NATS JetStream as a redrive destination: each dead letter is published back to its original
// subject with its headers, a new Nats-Msg-Id and Triage's headers (message.ts), and must be stored
// by its original stream (Nats-Expected-Stream). A publish JetStream refuses (another stream takes
// the subject, a limit) is the message's failure; no stream taking the subject, or credentials the
// server refuses, refuse the redrive itself (the task pauses and says what to fix); a connection
// that is down or a publish ack that never came is the infrastructure's (the runner waits and
// retries, and the retry carries the same Nats-Msg-Id, so JetStream stores it once even if the
// first one had landed).
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { log } from '@/lib/log';
import type { DeliveryResult, OutgoingRedrive, RedriveDestination } from '@/lib/model/redrive-destination';
import { deliverOver, deliveryFailureOf, type ConnectorSource } from '../types';
import type { NatsConfig, NatsSecret } from './config';
import { connectNats, endpointOf, natsError } from './connection';
import { redrivePublish } from './message';

const PUBLISH_TIMEOUT_MS = 10_000;

/** The names along an error's cause chain. */
function causes(err: unknown): string[] {
  const names: string[] = [];
  for (let e = (err as Error & { cause?: unknown })?.cause; e && names.length < 5; e = (e as { cause?: unknown }).cause) names.push((e as Error).name);
  return names;
}

export function natsDestination(source: ConnectorSource<NatsConfig, NatsSecret>): RedriveDestination {
  const { secret } = source;
  const endpoint = endpointOf(secret.url);
  let nc: NatsConnection | null = null;
  let opening: Promise<NatsConnection> | null = null;

  async function connection(): Promise<NatsConnection> {
    if (nc && !nc.isClosed()) return nc;
    opening ??= connectNats(secret, `triage redrive ${source.name}`)
      .then((c) => (nc = c))
      .finally(() => (opening = null));
    return opening;
  }

  async function publishOne(js: JetStreamClient, m: OutgoingRedrive): Promise<DeliveryResult> {
    const p = redrivePublish(m);
    if ('error' in p) return { ok: false, error: p.error, failure: 'message' };
    const h = natsHeaders();
    for (const [k, v] of p.headers) h.append(k, v);
    try {
      await js.publish(p.subject, p.payload, { headers: h, msgID: p.msgId, expect: { streamName: p.stream }, timeout: PUBLISH_TIMEOUT_MS });
      return { ok: true, acknowledged: false };
    } catch (err) {
      const e = err as Error;
      // No responders: no stream takes the subject any more (the client words it "jetstream is not enabled").
      if (e.name === 'JetStreamNotEnabled' && causes(e).includes('NoResponders')) {
        // Every message for that subject would fail the same way: a refusal of the redrive, with the fix.
        return {
          ok: false,
          error: `No stream takes subject "${p.subject}" on NATS at ${endpoint}: create or restore stream "${p.stream}" with that subject`,
          failure: 'refused',
        };
      }
      if (e.name === 'JetStreamApiError') {
        return { ok: false, error: `JetStream refused the message for subject "${p.subject}": ${e.message}`, failure: 'message' };
      }
      if (e.name === 'InvalidSubjectError' || e.name === 'InvalidArgumentError' || /max_payload|maximum payload/i.test(e.message)) {
        return { ok: false, error: `Cannot publish to "${p.subject}": ${e.message}`, failure: 'message' };
      }
      const ce = natsError(err, secret, { stream: p.stream });
      return { ok: false, error: ce.message, failure: deliveryFailureOf(ce) };
    }
  }

  return {
    description: `NATS ${endpoint}, each message's original subject in stream "${source.config.stream}"`,
    failures: 'infrastructure',
    // Published together, acknowledged one by one by JetStream: one round trip's wait for the batch.
    deliver: (batch) =>
      deliverOver(
        batch,
        async () => jetstream(await connection()),
        (err) => natsError(err, secret),
        publishOne,
      ),
    async close(): Promise<void> {
      const c = nc;
      nc = null;
      await c?.close().catch((err: unknown) => log.debug({ err, source: source.name }, 'NATS connection already closed'));
    },
  };
}
