// Helpers for the NATS JetStream connector tests, on the real nats-server at 127.0.0.1:4222: an
// application stream (names unique per run) with a durable pull consumer whose max_deliver makes
// dead letters; a real consumer of it that acks, naks or terminates; a source for the pair; cleanup
// of the stream and of the capture stream the connector created for it.
import { randomBytes } from 'node:crypto';
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, nanos, type NatsConnection } from '@nats-io/transport-node';
import { captureStreamName } from '@/lib/connectors/nats/capture';
import { commerceConnectorSource, type ConnectorSourceExtra } from './connectors-rabbitmq-support';

export const NATS_URL = 'nats://127.0.0.1:4222';

export interface WorkStream {
  run: string;
  stream: string;
  consumer: string;
  /** Messages are published on `${subject}.<n>`. */
  subject: string;
  capture: string;
}

let nc: NatsConnection | null = null;

export async function admin(): Promise<{ nc: NatsConnection; jsm: JetStreamManager }> {
  if (!nc || nc.isClosed()) nc = await connect({ servers: NATS_URL, name: 'triage test admin', maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  return { nc, jsm: await jetstreamManager(nc) };
}

const created: WorkStream[] = [];

/** A stream and its durable consumer with max_deliver (ack wait short, so a consumer that never acks dies quickly too). */
export async function workStream(opts: { maxDeliver?: number; workQueue?: boolean; ackWaitMs?: number; maxAgeMs?: number } = {}): Promise<WorkStream> {
  const run = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const stream = `TRIAGE_TEST_${run}`;
  const w: WorkStream = { run, stream, consumer: 'orders-worker', subject: `triage-test.${run}.orders`, capture: captureStreamName(stream, 'orders-worker') };
  const { jsm } = await admin();
  await jsm.streams.add({
    name: stream,
    subjects: [`${w.subject}.>`],
    ...(opts.workQueue ? { retention: RetentionPolicy.Workqueue } : {}),
    ...(opts.maxAgeMs ? { max_age: nanos(opts.maxAgeMs) } : {}),
  });
  await jsm.consumers.add(stream, {
    durable_name: w.consumer,
    ack_policy: AckPolicy.Explicit,
    max_deliver: opts.maxDeliver ?? 3,
    ack_wait: nanos(opts.ackWaitMs ?? 2_000),
  });
  created.push(w);
  return w;
}

export async function deleteWorkStreams(): Promise<void> {
  const { jsm } = await admin().catch(() => ({ jsm: null }));
  if (jsm) for (const w of created.splice(0)) for (const s of [w.stream, w.capture]) await jsm.streams.delete(s).catch(() => undefined);
  await nc?.close().catch(() => undefined);
  nc = null;
}

export interface Outgoing {
  n: number;
  data: Uint8Array;
  headers?: Record<string, string | string[]>;
  msgId?: string;
}

export async function publish(w: WorkStream, messages: Outgoing[]): Promise<void> {
  const js = jetstream((await admin()).nc);
  for (let i = 0; i < messages.length; i += 200) {
    await Promise.all(
      messages.slice(i, i + 200).map((m) => {
        const h = natsHeaders();
        for (const [k, v] of Object.entries(m.headers ?? {})) for (const x of Array.isArray(v) ? v : [v]) h.append(k, x);
        return js.publish(`${w.subject}.${m.n}`, m.data, { headers: h, ...(m.msgId ? { msgID: m.msgId } : {}) });
      }),
    );
  }
}

export type Decision = 'ack' | 'nak' | 'term' | 'ignore';

export interface WorkConsumer {
  close(): Promise<void>;
}

/** A real pull consumer of the work stream: `decide` says ack, nak (redelivered at once), term, or ignore (redelivered after the ack wait). */
export async function workConsumer(w: WorkStream, decide: (m: JsMsg) => Decision): Promise<WorkConsumer> {
  const conn = await connect({ servers: NATS_URL, name: `triage test consumer ${w.run}` });
  const c = await jetstream(conn).consumers.get(w.stream, w.consumer);
  const messages = await c.consume({ max_messages: 500 });
  const done = (async () => {
    for await (const m of messages) {
      const d = decide(m);
      if (d === 'ack') m.ack();
      else if (d === 'nak') m.nak();
      else if (d === 'term') m.term();
    }
  })().catch(() => undefined);
  return {
    close: async () => {
      await messages.close().catch(() => undefined);
      await done;
      await conn.close().catch(() => undefined);
    },
  };
}

export async function connectorSource(w: WorkStream, name: string, extra: ConnectorSourceExtra<{ secret?: Record<string, string> }> = {}) {
  return commerceConnectorSource({
    name,
    kind: 'nats',
    connection: { stream: w.stream, consumer: w.consumer, ...extra.connection },
    secret: extra.secret ?? { url: NATS_URL },
  });
}

/** Messages in a stream (0 when it does not exist). */
export async function streamMessages(name: string): Promise<number> {
  const { jsm } = await admin();
  return jsm.streams.info(name).then(
    (i) => i.state.messages,
    () => 0,
  );
}

/** Whether a stream exists (a source's capture stream is created on the connector's first start). */
export async function streamExists(name: string): Promise<boolean> {
  const { jsm } = await admin();
  return jsm.streams.info(name).then(
    () => true,
    () => false,
  );
}

export const order = (n: number, run: string) => new TextEncoder().encode(JSON.stringify({ order: n, run, note: 'x'.repeat(n % 40) }));
