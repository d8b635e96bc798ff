// The known traps of each broker's dead-letter settings (lib/connectors/*/traps.ts), without a broker:
// each one fires at its edge and stays quiet just inside it, in words that name the setting as the
// broker names it and say what to change.
import { describe, expect, it } from 'vitest';
import { bullmqTraps, FAILED_KEEP_MIN_COUNT, FAILED_KEEP_MIN_SECONDS, type BullmqJobSeen } from '@/lib/connectors/bullmq/traps';
import { natsTraps, type NatsTrapSettings } from '@/lib/connectors/nats/traps';
import { rabbitmqTraps, rabbitQueueSettings, sourceQueuesOf, type RabbitQueueSettings } from '@/lib/connectors/rabbitmq/traps';
import { maxReceiveCountOf, sqsTraps, type SqsQueueSettings, type SqsSourceQueueSettings } from '@/lib/connectors/sqs/traps';
import { NEAR_RETENTION_SHARE, TrapView, trapLine, type Trap } from '@/lib/connectors/traps';

const codes = (traps: Trap[]) => traps.map((t) => t.code);
const DAY = 86_400;

describe('SQS traps', () => {
  const dlq: SqsQueueSettings = { name: 'orders-dlq', retentionSeconds: 14 * DAY, fifo: false };
  const src = (s: Partial<SqsSourceQueueSettings> = {}): SqsSourceQueueSettings => ({
    name: 'orders',
    retentionSeconds: 4 * DAY,
    visibilityTimeoutSeconds: 30,
    maxReceiveCount: 5,
    fifo: false,
    ...s,
  });

  it('has none for a sound setup, and every trap fits the view', () => {
    expect(sqsTraps(dlq, [src()])).toEqual([]);
    const all = sqsTraps({ ...dlq, retentionSeconds: 4 * DAY }, [
      src({ maxReceiveCount: 1, visibilityTimeoutSeconds: 2 * DAY, name: 'orders.fifo', fifo: true }),
    ]);
    for (const t of all) expect(TrapView.parse(t)).toEqual(t);
  });

  it('maxReceiveCount 1 fires; 2 does not', () => {
    const [t] = sqsTraps(dlq, [src({ maxReceiveCount: 1 })]);
    expect(t).toMatchObject({
      code: 'receive_limit_one',
      severity: 'warning',
      message:
        'The redrive policy of "orders" has maxReceiveCount 1: one network blip or one redelivery after a consumer restart sends a good message to the dead-letter queue.',
      fix: expect.stringContaining('Set maxReceiveCount in the RedrivePolicy of "orders" to 3 or more'),
    });
    expect(sqsTraps(dlq, [src({ maxReceiveCount: 2 })])).toEqual([]);
  });

  it('reads maxReceiveCount from a RedrivePolicy, as a number or a string', () => {
    expect(maxReceiveCountOf('{"deadLetterTargetArn":"arn:x","maxReceiveCount":"1"}')).toBe(1);
    expect(maxReceiveCountOf('{"deadLetterTargetArn":"arn:x","maxReceiveCount":5}')).toBe(5);
    expect(maxReceiveCountOf(undefined)).toBeNull();
    expect(maxReceiveCountOf('not json')).toBeNull();
  });

  it('a DLQ retention equal to the source queue’s fires; one second longer does not; a FIFO DLQ restarts the clock', () => {
    const [t] = sqsTraps({ ...dlq, retentionSeconds: 4 * DAY }, [src()]);
    expect(t).toMatchObject({
      code: 'dlq_retention_not_longer',
      severity: 'warning',
      message: expect.stringContaining('The dead-letter queue "orders-dlq" keeps messages 4 d, not longer than its source queue "orders" (4 d)'),
      fix: "Set the DLQ's MessageRetentionPeriod longer than the source queue's (up to 14 d).",
    });
    expect(sqsTraps({ ...dlq, retentionSeconds: 4 * DAY + 1 }, [src()])).toEqual([]);
    expect(codes(sqsTraps({ ...dlq, name: 'o-dlq.fifo', retentionSeconds: 4 * DAY, fifo: true }, [src({ name: 'o.fifo', fifo: true })]))).toEqual([
      'fifo_order',
    ]);
  });

  it('maxReceiveCount × VisibilityTimeout at half the retention fires; one second under does not', () => {
    const retention = 4 * DAY;
    const edge = (retention * NEAR_RETENTION_SHARE) / 5; // 5 receives
    const [t] = sqsTraps(dlq, [src({ visibilityTimeoutSeconds: edge })]);
    expect(t).toMatchObject({ code: 'retry_loop_near_retention', severity: 'warning' });
    expect(t!.message).toContain('"orders": maxReceiveCount 5 × VisibilityTimeout 9 h 36 min = 2 d comes near its MessageRetentionPeriod (4 d)');
    expect(t!.message).toContain('expire before it is dead-lettered');
    expect(t!.fix).toBe('Lower maxReceiveCount or VisibilityTimeout of "orders", or raise its MessageRetentionPeriod (up to 14 d).');
    expect(sqsTraps(dlq, [src({ visibilityTimeoutSeconds: edge - 1 })])).toEqual([]);
    expect(sqsTraps(dlq, [src({ visibilityTimeoutSeconds: retention / 5 })])[0]!.message).toContain('reaches its MessageRetentionPeriod');
    // No redrive policy: no loop to check.
    expect(sqsTraps(dlq, [src({ maxReceiveCount: null, visibilityTimeoutSeconds: retention })])).toEqual([]);
  });

  it('a FIFO source queue says a parked message breaks its group’s order; a standard one does not', () => {
    const fifoDlq = { ...dlq, name: 'orders-dlq.fifo', fifo: true };
    const [t] = sqsTraps(fifoDlq, [src({ name: 'orders.fifo', fifo: true })]);
    expect(t).toMatchObject({
      code: 'fifo_order',
      severity: 'warning',
      message: expect.stringContaining('"orders.fifo" is a FIFO queue: a message moved to the dead-letter queue leaves a hole in its message group'),
      fix: expect.stringContaining('reconcile'),
    });
    // The source queue unknown: the FIFO DLQ says it.
    expect(sqsTraps(fifoDlq, [])[0]!.message).toContain('The source queue of "orders-dlq.fifo" is a FIFO queue');
    expect(sqsTraps(dlq, [])).toEqual([]);
  });

  it('joins message and fix into one line for text-only places', () => {
    const [t] = sqsTraps(dlq, [src({ maxReceiveCount: 1 })]);
    expect(trapLine(t!)).toBe(`${t!.message} ${t!.fix}`);
  });
});

describe('RabbitMQ traps', () => {
  const quorum = (name: string, args: Record<string, unknown> = {}, policy: Record<string, unknown> = {}) =>
    rabbitQueueSettings({ name, type: 'quorum', arguments: { 'x-queue-type': 'quorum', ...args }, effective_policy_definition: policy });
  const safe = { 'x-dead-letter-exchange': 'dlx', 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish', 'x-delivery-limit': 5 };
  const dlq: RabbitQueueSettings = rabbitQueueSettings({ name: 'orders.dlq', type: 'quorum', arguments: {} });

  it('has none for a quorum source with at-least-once dead-lettering and a DLQ without a TTL', () => {
    expect(rabbitmqTraps({ dlq, sources: [quorum('orders', safe)] })).toEqual([]);
  });

  it('x-delivery-limit 1 on a quorum queue fires; 2 does not; from a policy too', () => {
    const [t] = rabbitmqTraps({ dlq, sources: [quorum('orders', { ...safe, 'x-delivery-limit': 1 })] });
    expect(t).toMatchObject({
      code: 'receive_limit_one',
      severity: 'warning',
      message: expect.stringContaining('Quorum queue "orders" has x-delivery-limit 1'),
    });
    expect(t!.fix).toContain('Set x-delivery-limit on "orders"');
    expect(rabbitmqTraps({ dlq, sources: [quorum('orders', { ...safe, 'x-delivery-limit': 2 })] })).toEqual([]);
    const { 'x-delivery-limit': _, ...noLimit } = safe;
    expect(codes(rabbitmqTraps({ dlq, sources: [quorum('orders', noLimit, { 'delivery-limit': 1 })] }))).toEqual(['receive_limit_one']);
  });

  it('a classic queue dead-letters at most once: suggests a quorum queue with at-least-once and reject-publish', () => {
    const classic = rabbitQueueSettings({ name: 'orders', type: 'classic', arguments: { 'x-dead-letter-exchange': 'dlx' } });
    const [t] = rabbitmqTraps({ dlq, sources: [classic] });
    expect(t).toMatchObject({
      code: 'at_most_once_dead_lettering',
      severity: 'warning',
      message: expect.stringContaining('"orders" is a classic queue: RabbitMQ dead-letters its messages at most once'),
      fix: expect.stringContaining('quorum queue (x-queue-type quorum) with x-dead-letter-strategy at-least-once and x-overflow reject-publish'),
    });
  });

  it('a quorum queue without at-least-once, or at-least-once without reject-publish, is at most once too', () => {
    const { 'x-dead-letter-strategy': _s, ...noStrategy } = safe;
    expect(rabbitmqTraps({ dlq, sources: [quorum('orders', noStrategy)] })[0]!.message).toContain('(x-dead-letter-strategy not set)');
    const { 'x-overflow': _o, ...noOverflow } = safe;
    const [t] = rabbitmqTraps({ dlq, sources: [quorum('orders', noOverflow)] });
    expect(t).toMatchObject({ code: 'at_most_once_dead_lettering', fix: 'Set x-overflow reject-publish on "orders".' });
    // The policy's keys count as well as the arguments.
    expect(
      rabbitmqTraps({
        dlq,
        sources: [
          quorum('orders', { 'x-dead-letter-exchange': 'dlx', 'x-delivery-limit': 5 }, { 'dead-letter-strategy': 'at-least-once', overflow: 'reject-publish' }),
        ],
      }),
    ).toEqual([]);
  });

  it('an x-message-ttl on the DLQ equal to the source’s fires; one millisecond longer does not; a source without TTL keeps longer than any', () => {
    const ttlDlq = (ms: number) => rabbitQueueSettings({ name: 'orders.dlq', type: 'quorum', arguments: { 'x-message-ttl': ms } });
    const src = quorum('orders', { ...safe, 'x-message-ttl': 3_600_000 });
    const [t] = rabbitmqTraps({ dlq: ttlDlq(3_600_000), sources: [src] });
    expect(t).toMatchObject({
      code: 'dlq_retention_not_longer',
      severity: 'warning',
      message: expect.stringContaining(
        'The dead-letter queue "orders.dlq" drops messages after x-message-ttl 1 h, not longer than its source queue "orders" (x-message-ttl 1 h)',
      ),
      fix: 'Remove x-message-ttl from "orders.dlq", or set it longer than the source queue\'s.',
    });
    expect(rabbitmqTraps({ dlq: ttlDlq(3_600_001), sources: [src] })).toEqual([]);
    expect(rabbitmqTraps({ dlq: ttlDlq(30 * DAY * 1000), sources: [quorum('orders', safe)] })[0]!.message).toContain(
      'no x-message-ttl: it keeps messages until they are consumed',
    );
  });

  it('finds the source queues: dead-letter exchange bound to the DLQ, or the default exchange with the DLQ as routing key', () => {
    const queues = [
      { name: 'orders.dlq', type: 'quorum', arguments: {} },
      { name: 'orders', type: 'quorum', arguments: { 'x-dead-letter-exchange': 'dlx' } },
      {
        name: 'payments',
        type: 'classic',
        arguments: {},
        effective_policy_definition: { 'dead-letter-exchange': '', 'dead-letter-routing-key': 'orders.dlq' },
      },
      { name: 'elsewhere', type: 'classic', arguments: { 'x-dead-letter-exchange': 'other-dlx' } },
      { name: 'plain', type: 'classic', arguments: {}, effective_policy_definition: [] },
    ];
    expect(sourceQueuesOf('orders.dlq', ['dlx'], queues).map((q) => q.name)).toEqual(['orders', 'payments']);
  });

  it('without the management API: one info note naming what was not checked', () => {
    const [t] = rabbitmqTraps({ unreadable: 'without the management API' });
    expect(t).toMatchObject({
      code: 'settings_not_readable',
      severity: 'info',
      message: expect.stringContaining(
        'Settings not readable without the management API: x-delivery-limit, x-dead-letter-strategy and x-message-ttl were not checked',
      ),
      fix: expect.stringContaining('Set managementUrl'),
    });
  });
});

describe('NATS JetStream traps', () => {
  const settings = (s: { maxDeliver?: number; ackWait?: number; backoff?: boolean; maxAge?: number; captureAge?: number | null } = {}): NatsTrapSettings => ({
    stream: { name: 'ORDERS', maxAgeSeconds: s.maxAge ?? 0 },
    consumer: { name: 'worker', maxDeliver: s.maxDeliver ?? 5, ackWaitSeconds: s.ackWait ?? 30, backoff: s.backoff ?? false },
    capture: s.captureAge === null ? null : { name: 'TRIAGE_ADVISORIES_X', maxAgeSeconds: s.captureAge ?? 30 * DAY },
  });

  it('has none for the defaults (unlimited stream, 30 d capture)', () => {
    expect(natsTraps(settings())).toEqual([]);
  });

  it('max_deliver 1 fires; 2 and unlimited do not', () => {
    const [t] = natsTraps(settings({ maxDeliver: 1 }));
    expect(t).toMatchObject({ code: 'receive_limit_one', message: expect.stringContaining('Consumer "worker" of stream "ORDERS" has max_deliver 1') });
    expect(t!.fix).toContain('Set max_deliver on consumer "worker" to 3 or more');
    expect(natsTraps(settings({ maxDeliver: 2 }))).toEqual([]);
    expect(natsTraps(settings({ maxDeliver: -1 }))).toEqual([]);
  });

  it("the capture stream's max_age equal to the stream's fires; longer does not; an unlimited stream keeps its messages", () => {
    const [t] = natsTraps(settings({ maxAge: 30 * DAY }));
    expect(t).toMatchObject({
      code: 'dlq_retention_not_longer',
      severity: 'warning',
      message: expect.stringContaining(
        '"TRIAGE_ADVISORIES_X" keeps the dead-letter advisories 30 d (max_age), not longer than stream "ORDERS" keeps messages (max_age 30 d)',
      ),
      fix: expect.stringContaining('Set max_age of "TRIAGE_ADVISORIES_X" longer'),
    });
    expect(natsTraps(settings({ maxAge: 30 * DAY - 1 }))).toEqual([]);
    expect(natsTraps(settings({ maxAge: 30 * DAY, captureAge: null }))).toEqual([]);
  });

  it("max_deliver × ack_wait at half the stream's max_age fires; one second under does not; a backoff list is not ack_wait", () => {
    const [t] = natsTraps(settings({ maxDeliver: 10, ackWait: 60, maxAge: 1200 }));
    expect(t).toMatchObject({
      code: 'retry_loop_near_retention',
      message: expect.stringContaining("max_deliver 10 × ack_wait 1 min = 10 min comes near its stream's max_age (20 min)"),
      fix: 'Lower max_deliver or ack_wait of "worker", or raise max_age of stream "ORDERS".',
    });
    expect(natsTraps(settings({ maxDeliver: 10, ackWait: 60, maxAge: 1201 }))).toEqual([]);
    expect(natsTraps(settings({ maxDeliver: 10, ackWait: 60, maxAge: 1200, backoff: true }))).toEqual([]);
  });
});

describe('BullMQ traps', () => {
  const job = (j: Partial<BullmqJobSeen> = {}): BullmqJobSeen => ({ name: 'charge', attempts: 5, removeOnFail: false, ...j });

  it('has none for jobs with retries that keep their failures', () => {
    expect(bullmqTraps('payments', [job(), job({ removeOnFail: { age: FAILED_KEEP_MIN_SECONDS, count: FAILED_KEEP_MIN_COUNT } })])).toEqual([]);
  });

  it('attempts 1, or not set (BullMQ makes one), fires; 2 does not', () => {
    const [t] = bullmqTraps('payments', [job({ attempts: 1 }), job({ name: 'refund' })]);
    expect(t).toMatchObject({
      code: 'receive_limit_one',
      severity: 'warning',
      message: '1 of the 2 most recent jobs of "payments" ("charge") have attempts 1: one network blip or one worker restart fails a good job for good.',
      fix: expect.stringContaining("attempts 3 or more, with a backoff, in the queue's defaultJobOptions"),
    });
    expect(bullmqTraps('payments', [job({ attempts: undefined })])[0]!.message).toContain('attempts 1 (not set: BullMQ makes one attempt)');
    expect(bullmqTraps('payments', [job({ attempts: 2 })])).toEqual([]);
  });

  it('removeOnFail true fires', () => {
    const [t] = bullmqTraps('payments', [job({ removeOnFail: true })]);
    expect(t).toMatchObject({
      code: 'failed_jobs_removed',
      message: expect.stringContaining('removeOnFail true deletes a failed job as it fails, so Triage never sees it'),
    });
    expect(t!.fix).toContain('Set removeOnFail to false');
  });

  it('removeOnFail age just under a day fires; a day does not', () => {
    expect(bullmqTraps('payments', [job({ removeOnFail: { age: FAILED_KEEP_MIN_SECONDS - 1 } })])[0]!.message).toContain(
      'deletes failed jobs after 23 h 59 min (age)',
    );
    expect(bullmqTraps('payments', [job({ removeOnFail: { age: FAILED_KEEP_MIN_SECONDS } })])).toEqual([]);
  });

  it('removeOnFail count (or a number) under a thousand fires; a thousand does not', () => {
    expect(bullmqTraps('payments', [job({ removeOnFail: FAILED_KEEP_MIN_COUNT - 1 })])[0]!.message).toContain(
      'removeOnFail keeps only the newest 999 failed jobs',
    );
    expect(bullmqTraps('payments', [job({ removeOnFail: { count: FAILED_KEEP_MIN_COUNT - 1 } })])).toHaveLength(1);
    expect(bullmqTraps('payments', [job({ removeOnFail: FAILED_KEEP_MIN_COUNT })])).toEqual([]);
  });

  it('no job to read: an info note, not a warning', () => {
    const [t] = bullmqTraps('payments', []);
    expect(t).toMatchObject({ code: 'settings_not_readable', severity: 'info' });
    expect(t!.message).toContain('"payments" has no job to read them from, so attempts and removeOnFail were not checked');
  });
});
