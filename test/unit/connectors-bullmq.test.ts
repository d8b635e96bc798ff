import { describe, expect, it } from 'vitest';
import { isConnectionError, redisError } from '@/lib/connectors/bullmq/connection';
import { assignGenerations } from '@/lib/connectors/bullmq/import';
import { copyJobIdOf, deadLetterOfJob, errorNameOf, messageIdOfJob } from '@/lib/connectors/bullmq/map-job';

const hash = (fields: Record<string, string>) => Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Buffer.from(v)]));

describe('a failed BullMQ job as a dead letter', () => {
  const stack1 = 'TypeError: no customer\n    at handle (/app/orders.js:10:5)';
  const stack2 = 'TypeError: no customer\n    at handle (/app/orders.js:10:5)\n    at run (/app/worker.js:3:1)';
  const job = {
    id: '42',
    score: 1_700_000_000_500,
    hash: hash({
      name: 'order.placed',
      data: '{"n":42,"note":"ü"}',
      opts: JSON.stringify({ attempts: 2, backoff: { type: 'fixed', delay: 10 } }),
      timestamp: '1700000000000',
      processedOn: '1700000000400',
      finishedOn: '1700000000500',
      failedReason: 'no customer',
      stacktrace: JSON.stringify([stack1, stack2]),
      attemptsMade: '2',
    }),
  };

  it('keeps the data bytes, maps reason, stack, attempts, times and options', () => {
    const d = deadLetterOfJob(job, 'orders');
    expect(Buffer.from(d.payload).toString()).toBe('{"n":42,"note":"ü"}');
    expect(d).toMatchObject({
      messageId: '42',
      contentType: 'application/json',
      reason: 'MaxReceives',
      errorType: 'TypeError',
      errorMessage: 'no customer',
      errorStack: stack2,
      receiveCount: 2,
      enqueuedAt: new Date(1_700_000_000_000),
      deadAt: new Date(1_700_000_000_500),
      headers: {
        'bullmq.jobId': '42',
        'bullmq.name': 'order.placed',
        'bullmq.attempts': 2,
        'bullmq.backoff': { type: 'fixed', delay: 10 },
        'bullmq.processedOn': 1_700_000_000_400,
      },
    });
    expect(d.failureHistory).toEqual([
      { reason: 'attempt', errorType: 'TypeError', errorMessage: 'no customer', count: 1, firstAt: '', lastAt: '' },
      {
        reason: 'MaxReceives',
        errorType: 'TypeError',
        errorMessage: 'no customer',
        count: 1,
        firstAt: '2023-11-14T22:13:20.500Z',
        lastAt: '2023-11-14T22:13:20.500Z',
      },
    ]);
  });

  it('a job failed before its attempts ran out is Rejected; data that is not JSON is octet-stream', () => {
    const d = deadLetterOfJob({ ...job, hash: { ...job.hash, attemptsMade: Buffer.from('1'), data: Buffer.from([0xff, 0x00]) } }, 'orders');
    expect(d.reason).toBe('Rejected');
    expect(d.contentType).toBe('application/octet-stream');
    expect(Buffer.from(d.payload)).toEqual(Buffer.from([0xff, 0x00]));
  });

  it('reads an error name only where a "Name: " prefix is', () => {
    expect(errorNameOf('ValidationError: bad')).toBe('ValidationError');
    expect(errorNameOf('Order 5: bad')).toBeNull();
    expect(errorNameOf('no prefix')).toBeNull();
  });

  it("names Triage's copy of an integer job id apart, and maps it back", () => {
    expect(copyJobIdOf('17')).toBe('triage-copy-17');
    expect(copyJobIdOf('order-17')).toBe('order-17');
    expect(messageIdOfJob('triage-copy-17')).toBe('17');
    expect(messageIdOfJob('triage-copy-x')).toBe('triage-copy-x');
  });
});

describe('generations of a job', () => {
  const failure = (messageId: string, at: number) => ({ messageId, payload: new Uint8Array(), reason: 'MaxReceives' as const, deadAt: new Date(at) });

  it('a failure already held adds nothing; a new failure is the next generation, counted as a redrive only when Triage sent the last', () => {
    const held = new Map([
      ['1', [{ generation: 0, deadAtMs: 100, redriveCount: 0, redriven: true }]],
      ['2', [{ generation: 0, deadAtMs: 100, redriveCount: 0, redriven: false }]],
    ]);
    const { fresh, recorded } = assignGenerations([failure('1', 100), failure('1', 200), failure('2', 300), failure('3', 50)], held);
    expect(recorded).toBe(1);
    expect(fresh.map((f) => [f.messageId, f.generation, f.redriveCount])).toEqual([
      ['1', 1, 1],
      ['2', 1, 0],
      ['3', 0, 0],
    ]);
  });
});

describe('a Redis driver error as the user can act on it', () => {
  const secret = { url: 'redis://app:s3cret@127.0.0.1:6379' };

  // What ioredis says of a command sent between a dropped connection and its reconnect: the
  // connection is gone, so the import retries and a redrive counts it against Redis, not the job.
  it.each(["Stream isn't writeable and enableOfflineQueue options is false", 'Connection is closed.', 'connect ECONNREFUSED 127.0.0.1:6379'])(
    '"%s" is Redis unreachable',
    (message) => {
      const e = redisError(new Error(message), secret);
      expect(e.kind).toBe('unreachable');
      expect(e.message).toMatch(/^Redis at redis:\/\/app:\*\*\*@127\.0\.0\.1:6379 is unreachable/);
      expect(e.message).not.toContain('s3cret');
      expect(isConnectionError(new Error(message))).toBe(true);
    },
  );

  it('a refusal of the credentials is no outage', () => {
    expect(redisError(new Error('WRONGPASS invalid username-password pair'), secret).kind).toBe('auth');
  });
});
