// What the connector creates on the NATS server. NATS does not keep advisories: one published while
// nobody listens is gone. So on first start the connector creates a stream of its own that captures
// the two advisories of the watched consumer (file storage, limits retention: they are kept while
// the connector is down), and a durable pull consumer per Triage source that reads it with explicit
// acks, so an advisory is acknowledged only once its dead letter committed.
import { createHash } from 'node:crypto';
import { AckPolicy, DeliverPolicy, DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { env } from '@/lib/env';
import { ConnectorError } from '../types';
import { ADVISORY_SUBJECTS } from './message';

/** Captured advisories are kept this long (an advisory read and acknowledged stays until then too). */
const CAPTURE_MAX_AGE_DAYS = 30;

/**
 * The capture stream of a stream and consumer: one per pair on a server, whichever Triage sources
 * watch it (two streams may not take the same subjects), named by a hash because stream and
 * consumer names together may be longer than a stream name may be.
 */
export function captureStreamName(stream: string, consumer: string): string {
  const h = createHash('sha256').update(`${stream}\n${consumer}`).digest('hex').slice(0, 16).toUpperCase();
  return `TRIAGE_ADVISORIES_${h}`;
}

/** The durable consumer of one Triage source on the capture stream. */
export const readerName = (sourceId: string) => `triage-${sourceId}`;

const isNotFound = (err: unknown) => (err as Error)?.name === 'StreamNotFoundError' || (err as Error)?.name === 'ConsumerNotFoundError';

/** Create the capture stream, or add the subjects to one that lacks them; returns its name. */
export async function ensureCaptureStream(jsm: JetStreamManager, stream: string, consumer: string): Promise<string> {
  const name = captureStreamName(stream, consumer);
  const subjects = [ADVISORY_SUBJECTS.maxDeliveries(stream, consumer), ADVISORY_SUBJECTS.terminated(stream, consumer)];
  const overlap = (err: unknown) => {
    if (/overlap/i.test(String((err as Error)?.message))) {
      return new ConnectorError(
        'config',
        `Cannot capture the advisories of "${stream}" > "${consumer}": another stream already takes subject ${subjects[0]} (Triage needs its own capture stream, ${name})`,
      );
    }
    return err;
  };
  try {
    const info = await jsm.streams.info(name);
    const missing = subjects.filter((s) => !info.config.subjects?.includes(s));
    if (missing.length)
      await jsm.streams
        .update(name, { ...info.config, subjects: [...(info.config.subjects ?? []), ...missing] })
        .catch((err: unknown) => Promise.reject(overlap(err)));
    return name;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await jsm.streams.add({
      name,
      description: `Triage: captured dead-letter advisories of ${stream} > ${consumer}`,
      subjects,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: nanos(CAPTURE_MAX_AGE_DAYS * 86_400_000),
    });
  } catch (err) {
    // Another Triage source on the same pair created it first: that one is as good.
    if (!/already in use/i.test(String((err as Error)?.message))) throw overlap(err);
  }
  return name;
}

/** This source's durable reader of the capture stream, created at the start of the stream (nothing captured is skipped). */
export async function ensureReader(jsm: JetStreamManager, capture: string, sourceId: string, maxAckPending: number): Promise<string> {
  const name = readerName(sourceId);
  try {
    await jsm.consumers.info(capture, name);
    return name;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await jsm.consumers.add(capture, {
    durable_name: name,
    description: 'Triage: imports the captured dead-letter advisories of one source',
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(env().NATS_READER_ACK_WAIT_SECONDS * 1000),
    max_ack_pending: maxAckPending,
  });
  return name;
}
