// The consumer alarm's decision, pure: a source queue with messages and nothing consuming it, or one
// whose oldest message waits past the limit, alarms; what the broker does not tell never does.
import { describe, expect, it } from 'vitest';
import { MINUTE } from '@/lib/clock';
import {
  CONFIRM_MS,
  HINTS,
  describe as describeAlarm,
  nextState,
  noConsumerSeen,
  sourceQueueProblem,
  targetLevel,
  type SourceQueueObservation,
} from '@/lib/model/alarm-rules';
import { staleness, SOURCE_QUEUE_STALE_MS } from '@/lib/connectors/source-queue-view';
import { alarmMessage } from '@/lib/notifications/alarm-message';

const q = (o: Partial<SourceQueueObservation>): SourceQueueObservation => ({
  queue: 'orders.work',
  depth: 0,
  inFlight: null,
  consumers: 1,
  oldestAgeMs: null,
  maxAgeMs: 15 * MINUTE,
  ...o,
});
const obs = (sourceQueue?: SourceQueueObservation) => ({ openCount: 0, oldestAgeMs: null, ageDeadlineMs: 1, rateCount: 0, sourceQueue });

describe('source queue: when to alarm', () => {
  it('alarms when messages wait and no consumer is attached', () => {
    expect(sourceQueueProblem(q({ depth: 5, consumers: 0 }))).toBe('nothing consumes');
    expect(targetLevel('consumer', obs(q({ depth: 5, consumers: 0 })))).toBe('ALARM');
  });

  it('stays OK with a consumer attached, or with no consumer and nothing waiting', () => {
    expect(sourceQueueProblem(q({ depth: 5, consumers: 2 }))).toBeNull();
    expect(sourceQueueProblem(q({ depth: 0, consumers: 0 }))).toBeNull();
    expect(targetLevel('consumer', obs(q({ depth: 0, consumers: 0 })))).toBe('OK');
  });

  it('where the broker counts no consumers (SQS), messages waiting and none in flight mean nothing receives', () => {
    expect(noConsumerSeen({ depth: 3, inFlight: 0, consumers: null })).toBe(true);
    expect(noConsumerSeen({ depth: 3, inFlight: 1, consumers: null })).toBe(false);
    // Neither figure known: no guess.
    expect(noConsumerSeen({ depth: 3, inFlight: null, consumers: null })).toBe(false);
  });

  it('alarms when the oldest message waits past the limit, even with consumers', () => {
    expect(sourceQueueProblem(q({ depth: 1, consumers: 3, oldestAgeMs: 15 * MINUTE + 1 }))).toBe('source queue stalled');
    expect(sourceQueueProblem(q({ depth: 1, consumers: 3, oldestAgeMs: 15 * MINUTE }))).toBeNull();
    // No age told (SQS, RabbitMQ over AMQP): never stalled by age.
    expect(sourceQueueProblem(q({ depth: 1_000, consumers: 3, oldestAgeMs: null }))).toBeNull();
  });

  it('without a reading there is nothing to alarm about', () => {
    expect(targetLevel('consumer', obs())).toBe('OK');
  });

  it('a consumer missing for less than the confirm time (a rolling deploy) stays PENDING', () => {
    const t0 = new Date('2026-12-05T10:00:00Z');
    const p = nextState(undefined, 'ALARM', t0, CONFIRM_MS.consumer);
    expect(p.state).toBe('PENDING');
    expect(nextState(p, 'ALARM', new Date(t0.getTime() + CONFIRM_MS.consumer), CONFIRM_MS.consumer).state).toBe('ALARM');
    expect(nextState(p, 'OK', new Date(t0.getTime() + 30_000), CONFIRM_MS.consumer).state).toBe('OK');
  });

  it('describes the depth, and the advice says what to do and that dead letters cannot show it', () => {
    expect(describeAlarm('consumer', obs(q({ depth: 7, consumers: 0 })))).toEqual({
      value: 7,
      threshold: 'messages and no consumer, or the oldest over 15 min',
    });
    expect(HINTS['nothing consumes']).toMatch(/start the consumer, or check its circuit breaker; dead letters cannot show this/);
  });

  it('the notification names the queue and the advice', () => {
    const m = alarmMessage(
      {
        sourceId: 's',
        sourceName: 'orders',
        teamId: 't',
        kind: 'consumer',
        from: 'PENDING',
        to: 'ALARM',
        at: new Date('2026-12-05T10:00:00Z'),
        label: 'nothing consumes',
        hint: HINTS['nothing consumes'],
        value: 12,
        ageDeadlineSeconds: 3600,
        sourceQueue: { queue: 'orders.work', consumers: 0, inFlight: null, oldestAgeSeconds: null, maxAgeSeconds: 900 },
      },
      'https://triage.example',
    );
    expect(m.text).toBe(
      '[ALARM] orders consumer alarm PENDING → ALARM: nothing consumes orders.work: 12 messages waiting, 0 consumers · nothing consumes: start the consumer, or check its circuit breaker; dead letters cannot show this (nothing fails, so nothing is dead-lettered)',
    );
  });
});

describe('source queue: stale readings', () => {
  const now = new Date('2026-12-05T10:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  it('a fresh successful read is not stale', () => {
    expect(staleness({ readAt: ago(15_000), error: null, errorAt: null }, now)).toBeNull();
  });
  it('a failed read after the last success is stale, with its reason', () => {
    expect(staleness({ readAt: ago(30_000), error: 'RabbitMQ at 127.0.0.1:1 is not reachable (ECONNREFUSED)', errorAt: ago(1_000) }, now)).toMatch(
      /not reachable/,
    );
  });
  it('a reading not refreshed for two minutes is stale', () => {
    expect(staleness({ readAt: ago(SOURCE_QUEUE_STALE_MS + 1), error: null, errorAt: null }, now)).toMatch(/not read for over two minutes/);
  });
});
