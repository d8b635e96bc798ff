import { describe, expect, it } from 'vitest';
import {
  addFailure,
  countedDeliveries,
  describeError,
  firstFailedAt,
  lastFailure,
  MAX_HISTORY_ENTRIES,
  readHistory,
  TIMEOUT_FAILURE,
} from '@/lib/runtime/failure-history';
import { jobIdFor } from '@/lib/queue/envelope';

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
const e503 = { errorType: 'HttpError', errorMessage: 'downstream answered 503' };

describe('failure history', () => {
  it('compresses repeated failures by (reason, error) with a count, keeping first and last time', () => {
    let h = addFailure([], 'Retried', e503, t(1));
    h = addFailure(h, 'Retried', e503, t(2));
    h = addFailure(h, 'Timeout', TIMEOUT_FAILURE, t(3), 2);
    h = addFailure(h, 'Retried', e503, t(4));
    h = addFailure(h, 'MaxReceives', e503, t(5));
    expect(h.map((e) => [e.reason, e.errorType, e.count, e.firstAt, e.lastAt])).toEqual([
      ['Retried', 'HttpError', 3, t(1).toISOString(), t(4).toISOString()],
      ['Timeout', 'VisibilityTimeout', 2, t(3).toISOString(), t(3).toISOString()],
      ['MaxReceives', 'HttpError', 1, t(5).toISOString(), t(5).toISOString()],
    ]);
    expect(countedDeliveries(h)).toBe(6);
    expect(firstFailedAt(h)).toEqual(t(1));
    expect(lastFailure(h)).toEqual(e503);
  });

  it('stays bounded and still accounts for every delivery', () => {
    let h = addFailure([], 'Retried', { errorType: 'E', errorMessage: 'm0' }, t(0));
    for (let i = 1; i < 50; i++) h = addFailure(h, 'Retried', { errorType: 'E', errorMessage: `m${i}` }, t(i));
    expect(h).toHaveLength(MAX_HISTORY_ENTRIES);
    expect(countedDeliveries(h)).toBe(50);
    expect(firstFailedAt(h)).toEqual(t(0));
  });

  it('reads only a history it wrote, and names any thrown value', () => {
    expect(readHistory(0)).toEqual([]);
    expect(readHistory({ history: 'x' })).toEqual([]);
    expect(lastFailure([])).toEqual(TIMEOUT_FAILURE);
    expect(describeError('boom')).toEqual({ errorType: 'string', errorMessage: 'boom', stack: null });
    class MemberNotFound extends Error {}
    expect(describeError(new MemberNotFound('member 7')).errorType).toBe('MemberNotFound');
  });
});

describe('job ids', () => {
  it('map message ids one-to-one to ids BullMQ accepts, one per redrive', () => {
    const ids = ['123', 'a:b', 'a%3Ab', 'a/1', 'a'].flatMap((m) => [jobIdFor(m, 0), jobIdFor(m, 1)]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).not.toContain(':');
      expect(Number.isInteger(Number(id))).toBe(false);
    }
  });
});
