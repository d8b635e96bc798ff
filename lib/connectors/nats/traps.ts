// The traps of a JetStream dead-letter setup, from the stream and consumer info "test connection"
// reads, and Triage's own capture stream of the consumer's advisories (./capture.ts). Pure:
// lib/connectors/traps.ts has the shape.
import { duration, receiveLimitOne, retryLoopNearRetention, type Trap } from '../traps';

export interface NatsTrapSettings {
  /** The application's stream; maxAgeSeconds 0 is unlimited. */
  stream: { name: string; maxAgeSeconds: number };
  /** Its consumer: max_deliver (-1 unlimited), ack_wait, and whether a backoff list replaces ack_wait between deliveries. */
  consumer: { name: string; maxDeliver: number; ackWaitSeconds: number; backoff: boolean };
  /** Triage's capture stream, once the import created it. */
  capture: { name: string; maxAgeSeconds: number } | null;
}

/** Nanoseconds (JetStream's durations) as seconds. */
export const secondsOfNanos = (n: number | undefined) => (n ?? 0) / 1e9;

/**
 * The capture stream holds the only record of a death (NATS keeps no advisory): one that expires
 * there before Triage imported it is a death never recorded, while its message still sits in the
 * stream. Only when both keep for a limited time: an unlimited source stream keeps the message,
 * and the capture stream's clock starts at the advisory, not at the message.
 */
export function captureRetentionTrap(s: NatsTrapSettings): Trap | null {
  const { capture, stream } = s;
  if (!capture || capture.maxAgeSeconds <= 0 || stream.maxAgeSeconds <= 0 || capture.maxAgeSeconds > stream.maxAgeSeconds) return null;
  return {
    code: 'dlq_retention_not_longer',
    severity: 'warning',
    message:
      `Triage's capture stream "${capture.name}" keeps the dead-letter advisories ${duration(capture.maxAgeSeconds)} (max_age), not longer than stream "${stream.name}" keeps messages (max_age ${duration(stream.maxAgeSeconds)}). ` +
      `An advisory Triage has not imported by then is dropped, and that death is never recorded.`,
    fix: `Set max_age of "${capture.name}" longer than the max_age of "${stream.name}" (nats stream edit ${capture.name} --max-age=…).`,
  };
}

export function natsTraps(s: NatsTrapSettings): Trap[] {
  const where = `Consumer "${s.consumer.name}" of stream "${s.stream.name}"`;
  return [
    receiveLimitOne(
      where,
      'max_deliver',
      s.consumer.maxDeliver,
      `Set max_deliver on consumer "${s.consumer.name}" to 3 or more, so a passing failure is redelivered.`,
    ),
    captureRetentionTrap(s),
    // With a backoff list the waits between deliveries are its entries, not ack_wait.
    s.consumer.backoff
      ? null
      : retryLoopNearRetention(
          where,
          { limitSetting: 'max_deliver', limit: s.consumer.maxDeliver, waitSetting: 'ack_wait', waitSeconds: s.consumer.ackWaitSeconds },
          { setting: `stream's max_age`, seconds: s.stream.maxAgeSeconds },
          `Lower max_deliver or ack_wait of "${s.consumer.name}", or raise max_age of stream "${s.stream.name}".`,
        ),
  ].filter((t): t is Trap => t !== null);
}
