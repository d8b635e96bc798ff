// The traps of a RabbitMQ dead-letter setup, from what the management API shows of the dead-letter
// queue and of the queues that dead-letter into it (AMQP shows no queue arguments). Pure:
// lib/connectors/traps.ts has the shape.
import { duration, receiveLimitOne, type Trap } from '../traps';

/** A queue as GET /api/queues/{vhost} lists it (the columns Triage asks for). */
export interface ManagementQueue {
  name: string;
  type?: string;
  arguments?: Record<string, unknown>;
  /** What the queue's policy sets, keys without the "x-" prefix (dead-letter-exchange, delivery-limit…). */
  effective_policy_definition?: Record<string, unknown> | unknown[];
}

/** A queue's dead-letter settings, from its arguments or else its policy. */
export interface RabbitQueueSettings {
  name: string;
  /** x-queue-type: classic, quorum or stream. */
  type: string;
  deadLetterExchange: string | null;
  deadLetterRoutingKey: string | null;
  deadLetterStrategy: string | null;
  overflow: string | null;
  deliveryLimit: number | null;
  messageTtlMs: number | null;
}

export function rabbitQueueSettings(q: ManagementQueue): RabbitQueueSettings {
  const args = q.arguments ?? {};
  const policy: Record<string, unknown> = Array.isArray(q.effective_policy_definition) ? {} : (q.effective_policy_definition ?? {});
  // A queue's own argument wins over its policy's key for the settings read here.
  const read = (key: string): unknown => args[`x-${key}`] ?? policy[key] ?? null;
  const text = (key: string) => (read(key) === null ? null : String(read(key)));
  const num = (key: string) => {
    const v = read(key);
    return v === null || !Number.isFinite(Number(v)) ? null : Number(v);
  };
  return {
    name: q.name,
    type: q.type ?? text('queue-type') ?? 'classic',
    deadLetterExchange: text('dead-letter-exchange'),
    deadLetterRoutingKey: text('dead-letter-routing-key'),
    deadLetterStrategy: text('dead-letter-strategy'),
    overflow: text('overflow'),
    deliveryLimit: num('delivery-limit'),
    messageTtlMs: num('message-ttl'),
  };
}

/**
 * The queues that dead-letter into the DLQ: their dead-letter exchange is one bound to it, or the
 * default exchange with the DLQ's name as the dead-letter routing key.
 */
export function sourceQueuesOf(dlq: string, boundExchanges: readonly string[], queues: readonly ManagementQueue[]): RabbitQueueSettings[] {
  return queues
    .filter((q) => q.name !== dlq)
    .map(rabbitQueueSettings)
    .filter(
      (s) => s.deadLetterExchange !== null && (s.deadLetterExchange === '' ? s.deadLetterRoutingKey === dlq : boundExchanges.includes(s.deadLetterExchange)),
    );
}

const AT_LEAST_ONCE_FIX =
  'x-dead-letter-strategy at-least-once and x-overflow reject-publish: the broker then keeps each message until the dead-letter queue has confirmed it';

/** RabbitMQ dead-letters at most once unless a quorum queue asks for at-least-once with reject-publish (seed 000, "Pitfalls"). */
export function atMostOnceTrap(s: RabbitQueueSettings): Trap | null {
  if (s.deadLetterExchange === null) return null;
  const lost = 'a dead letter the dead-letter exchange cannot route, or the dead-letter queue does not accept, is lost without a word';
  if (s.type === 'classic') {
    return {
      code: 'at_most_once_dead_lettering',
      severity: 'warning',
      message: `"${s.name}" is a classic queue: RabbitMQ dead-letters its messages at most once, so ${lost}.`,
      fix: `Make "${s.name}" a quorum queue (x-queue-type quorum) with ${AT_LEAST_ONCE_FIX}.`,
    };
  }
  if (s.type !== 'quorum') return null;
  if (s.deadLetterStrategy !== 'at-least-once') {
    return {
      code: 'at_most_once_dead_lettering',
      severity: 'warning',
      message: `Quorum queue "${s.name}" dead-letters at most once (x-dead-letter-strategy ${s.deadLetterStrategy ?? 'not set'}), so ${lost}.`,
      fix: `Set on "${s.name}" ${AT_LEAST_ONCE_FIX}.`,
    };
  }
  if (s.overflow !== 'reject-publish') {
    return {
      code: 'at_most_once_dead_lettering',
      severity: 'warning',
      message: `Quorum queue "${s.name}" asks for x-dead-letter-strategy at-least-once, but without x-overflow reject-publish RabbitMQ falls back to at most once, so ${lost}.`,
      fix: `Set x-overflow reject-publish on "${s.name}".`,
    };
  }
  return null;
}

/** A DLQ whose x-message-ttl is not longer than its source queue's drops dead letters before anyone looked at them. */
export function dlqTtlTrap(dlq: RabbitQueueSettings, source: RabbitQueueSettings): Trap | null {
  if (dlq.messageTtlMs === null) return null;
  if (source.messageTtlMs !== null && dlq.messageTtlMs > source.messageTtlMs) return null;
  const sourceTtl =
    source.messageTtlMs === null ? 'no x-message-ttl: it keeps messages until they are consumed' : `x-message-ttl ${duration(source.messageTtlMs / 1000)}`;
  return {
    code: 'dlq_retention_not_longer',
    severity: 'warning',
    message:
      `The dead-letter queue "${dlq.name}" drops messages after x-message-ttl ${duration(dlq.messageTtlMs / 1000)}, not longer than its source queue "${source.name}" (${sourceTtl}). ` +
      `A dead letter Triage has not imported by then is deleted before anyone has looked at it.`,
    fix: `Remove x-message-ttl from "${dlq.name}", or set it longer than the source queue's.`,
  };
}

export function settingsNotReadable(why: string): Trap {
  return {
    code: 'settings_not_readable',
    severity: 'info',
    message: `Settings not readable ${why}: x-delivery-limit, x-dead-letter-strategy and x-message-ttl were not checked (AMQP does not show a queue's arguments).`,
    fix: 'Set managementUrl in the connection settings to the management API on the broker’s host (http://host:15672), with a user that may read the queues.',
  };
}

export type RabbitSettingsRead = { dlq: RabbitQueueSettings; sources: RabbitQueueSettings[] } | { unreadable: string };

export function rabbitmqTraps(read: RabbitSettingsRead): Trap[] {
  if ('unreadable' in read) return [settingsNotReadable(read.unreadable)];
  const traps: (Trap | null)[] = [];
  for (const s of read.sources) {
    traps.push(
      s.type === 'quorum'
        ? receiveLimitOne(
            `Quorum queue "${s.name}"`,
            'x-delivery-limit',
            s.deliveryLimit,
            `Set x-delivery-limit on "${s.name}" (its argument or the delivery-limit policy key) to 3 or more, so a passing failure is retried.`,
          )
        : null,
      atMostOnceTrap(s),
      dlqTtlTrap(read.dlq, s),
    );
  }
  return traps.filter((t): t is Trap => t !== null);
}
