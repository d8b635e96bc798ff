// "Test connection" for a NATS JetStream source: the stream exists (messages, subjects, retention),
// the consumer exists with its max_deliver and its pending and unacknowledged counts, and whether the
// connector's capture stream is there yet (created on the import's first start) and how much of it
// Triage has still to read; the stream's, consumer's and capture stream's settings checked against
// the known traps (./traps.ts).
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ConnectorSource, ProbeReport } from '../types';
import { captureStreamName, readerName } from './capture';
import type { NatsConfig, NatsSecret } from './config';
import { connectNats, endpointOf, natsError } from './connection';
import { trapLine } from '../traps';
import { natsTraps, secondsOfNanos } from './traps';

export async function probeNats(source: ConnectorSource<NatsConfig, NatsSecret>): Promise<ProbeReport> {
  const { stream, consumer } = source.config;
  const where = { stream, consumer };
  const base = { endpoint: endpointOf(source.secret.url), stream, consumer };
  let nc: NatsConnection | null = null;
  try {
    nc = await connectNats(source.secret, `triage probe ${source.name}`);
    const jsm = await jetstreamManager(nc);
    const si = await jsm.streams.info(stream);
    const ci = await jsm.consumers.info(stream, consumer);
    const maxDeliver = ci.config.max_deliver ?? -1;
    const capture = captureStreamName(stream, consumer);
    const captured = await jsm.consumers.info(capture, readerName(source.id)).then(
      (r) => r.num_pending + r.num_ack_pending,
      () => null,
    );
    const captureInfo = await jsm.streams.info(capture).catch(() => null);
    const traps = natsTraps({
      stream: { name: stream, maxAgeSeconds: secondsOfNanos(si.config.max_age) },
      consumer: { name: consumer, maxDeliver, ackWaitSeconds: secondsOfNanos(ci.config.ack_wait), backoff: (ci.config.backoff ?? []).length > 0 },
      capture: captureInfo ? { name: capture, maxAgeSeconds: secondsOfNanos(captureInfo.config.max_age) } : null,
    });
    const warnings = traps.filter((t) => t.severity === 'warning').map(trapLine);
    const facts: ProbeReport['facts'] = {
      ...base,
      exists: true,
      messages: si.state.messages,
      subjects: (si.config.subjects ?? []).join(', '),
      retention: si.config.retention,
      maxAgeSeconds: secondsOfNanos(si.config.max_age),
      maxDeliver,
      ackWaitSeconds: secondsOfNanos(ci.config.ack_wait),
      ackPolicy: ci.config.ack_policy,
      numPending: ci.num_pending,
      ackPending: ci.num_ack_pending,
      redelivered: ci.num_redelivered,
      captureStream: capture,
      advisoriesToImport: captured,
      ...(maxDeliver < 1 ? { warning: 'max_deliver is unlimited: no message reaches it, so only terminated messages (AckTerm) become dead letters' } : {}),
    };
    const summary = `Stream "${stream}" (${si.state.messages} messages) and consumer "${consumer}" exist: max_deliver ${maxDeliver < 1 ? 'unlimited' : maxDeliver}, ${ci.num_pending} pending, ${ci.num_ack_pending} awaiting ack`;
    return { ok: true, summary, facts, traps, ...(warnings.length ? { warnings } : {}) };
  } catch (err) {
    const error = natsError(err, source.secret, where).message;
    return { ok: false, summary: error, facts: base, error };
  } finally {
    await nc?.close().catch(() => undefined);
  }
}
