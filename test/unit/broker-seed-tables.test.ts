// The measured tables of reference/seeds/003 (and the cost figure of seed 000), reproduced on the
// broker core. The seed parks a message when its last allowed attempt fails; the core parks it when
// it next comes up for receive (as SQS does), one round later: every counted number is the same.
import { describe, expect, it } from 'vitest';
import { BrokerQueue, runRounds, type Delivery, type Outcome } from '@/lib/broker';

const ROUND_MS = 3_600_000; // longer than the largest backoff (1,024 s) and the visibility timeout
const POISON = new Set([7, 13]); // seed 003: messages referencing a member record that does not exist
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function loanQueue(maxReceives: number): BrokerQueue {
  const queue = new BrokerQueue({ maxReceives, visibilityMs: 30_000, backoffMs: 1_000, maxRedrives: 2, jitter: false });
  for (let loanId = 1; loanId <= 20; loanId++) {
    expect(queue.send(encoder.encode(JSON.stringify({ loanId })), 0)).toBe(loanId);
  }
  return queue;
}

function overdueNotification(broken: ReadonlySet<number>) {
  return (delivery: Delivery): Outcome => {
    const { loanId } = JSON.parse(decoder.decode(delivery.body)) as { loanId: number };
    return broken.has(loanId) ? { kind: 'retry', error: `member not found (loan ${loanId})` } : { kind: 'ack' };
  };
}

describe('seed 003: the cost of unbounded retry (threshold.mjs)', () => {
  // mode, maxReceives (Infinity = no threshold), rounds → delivered, succeeded, wasted, depth, dead letters
  const table = [
    ['unbounded', Infinity, 8, 34, 18, 16, 2, 0],
    ['unbounded', Infinity, 24, 66, 18, 48, 2, 0],
    ['threshold=3', 3, 8, 24, 18, 6, 0, 2],
  ] as const;

  it.each(table)('%s, %i rounds', (_mode, maxReceives, rounds, delivered, succeeded, wasted, depth, dead) => {
    const queue = loanQueue(maxReceives);
    const report = runRounds(queue, { rounds, roundMs: ROUND_MS, handle: overdueNotification(POISON) });
    const stats = queue.stats;
    expect({
      delivered: report.delivered,
      succeeded: report.succeeded,
      wasted: report.wasted,
      depth: stats.ready + stats.inFlight + stats.delayed,
      dead: stats.dead,
    }).toEqual({ delivered, succeeded, wasted, depth, dead });
  });
});

describe('seed 003: the dead-letter record and redrive after a fix (redrive.mjs)', () => {
  it('parks 7 and 13 with their evidence, then processes them after a reset redrive', () => {
    const queue = loanQueue(3);
    const broken = new Set(POISON);
    const first = runRounds(queue, { rounds: 100, roundMs: ROUND_MS, handle: overdueNotification(broken) });
    const afterFirst = queue.stats;
    expect(first.succeeded).toBe(18); // first pass: processed=18
    expect(afterFirst.ready + afterFirst.inFlight + afterFirst.delayed).toBe(0); // pending=0
    expect(
      queue.deadLetters.map((d) => ({
        message: d.message.id,
        attempt: d.message.receives,
        reason: d.reason,
        body: decoder.decode(d.message.body),
        lastError: d.detail,
      })),
    ).toEqual([
      { message: 7, attempt: 3, reason: 'MaxReceives', body: '{"loanId":7}', lastError: 'member not found (loan 7)' },
      { message: 13, attempt: 3, reason: 'MaxReceives', body: '{"loanId":13}', lastError: 'member not found (loan 13)' },
    ]);

    broken.clear(); // the missing member records were completed
    const redriveAt = first.endAt + ROUND_MS;
    expect(queue.redrive(Infinity, redriveAt)).toBe(2); // redriven=2
    const second = runRounds(queue, {
      rounds: 100,
      roundMs: ROUND_MS,
      startAt: redriveAt,
      handle: overdueNotification(broken),
    });
    expect(second.succeeded).toBe(2); // second pass: processed=2
    expect(second.delivered).toBe(2); // each redriven message got a fresh count and succeeded at once
    const end = queue.stats;
    expect(first.succeeded + second.succeeded).toBe(20); // result: processed=20
    expect(end.ready + end.inFlight + end.delayed).toBe(0); // pending=0
    expect(end.dead).toBe(0); // dead letters=0
  });
});

describe('seed 003: choosing the threshold value (threshold-selection.mjs)', () => {
  // needed = the attempt number that succeeds, 0 = never
  const needed = (n: number): number => (n === 7 || n === 13 ? 0 : n % 5 === 0 ? 5 : n % 3 === 0 ? 3 : 1);
  const ids = Array.from({ length: 20 }, (_, i) => i + 1);

  it('has the seed workload: 20 messages, 2 broken, 5 clear on attempt 3, 4 on attempt 5', () => {
    expect(ids.filter((n) => needed(n) === 0)).toHaveLength(2);
    expect(ids.filter((n) => needed(n) === 3)).toHaveLength(5);
    expect(ids.filter((n) => needed(n) === 5)).toHaveLength(4);
  });

  // threshold → processed, wasted attempts, wrongly isolated, permanently isolated
  const table = [
    [1, 9, 11, 9, 2],
    [2, 9, 22, 9, 2],
    [3, 14, 28, 4, 2],
    [5, 18, 36, 0, 2],
    [8, 18, 42, 0, 2],
  ] as const;

  it.each(table)('threshold %i', (threshold, processed, wasted, wronglyIsolated, permanentlyIsolated) => {
    const queue = new BrokerQueue({ maxReceives: threshold, visibilityMs: 30_000, backoffMs: 1_000, jitter: false });
    for (const n of ids) expect(queue.send(new Uint8Array([n]), 0)).toBe(n);
    const report = runRounds(queue, {
      rounds: 100,
      roundMs: ROUND_MS,
      handle: (d) => {
        const need = needed(d.id);
        return need !== 0 && d.receives >= need ? { kind: 'ack' } : { kind: 'retry', error: 'not yet' };
      },
    });
    const parked = queue.deadLetters.map((d) => d.message.id);
    expect({
      processed: report.succeeded,
      wasted: report.wasted,
      wronglyIsolated: parked.filter((n) => needed(n) !== 0).length,
      permanentlyIsolated: parked.filter((n) => needed(n) === 0).length,
    }).toEqual({ processed, wasted, wronglyIsolated, permanentlyIsolated });
    expect(queue.deadLetters.every((d) => d.reason === 'MaxReceives' && d.message.receives === threshold)).toBe(true);
  });
});

describe('seed 000: the cost of a poison message', () => {
  it('with 10 receives and a 30 s timeout, a crashing message holds a slot about 5 minutes and 10 receives', () => {
    const queue = new BrokerQueue({ maxReceives: 10, visibilityMs: 30_000, backoffMs: 1_000 });
    queue.send(new Uint8Array([0xff]), 0);
    let now = 0;
    let receives = 0;
    // The consumer crashes on every delivery: it never settles, the visibility timeout fails it.
    while (queue.receive(now) !== undefined) {
      receives += 1;
      now += 30_000;
    }
    expect(receives).toBe(10);
    expect(queue.deadLetters).toEqual([expect.objectContaining({ reason: 'MaxReceives', deadAt: 300_000, detail: 'visibility timeout expired' })]);
  });

  it('rejecting a permanent error saves maxReceives − 1 attempts', () => {
    const queue = new BrokerQueue({ maxReceives: 10, visibilityMs: 30_000, backoffMs: 1_000 });
    queue.send(new Uint8Array([0xff]), 0);
    const report = runRounds(queue, {
      rounds: 100,
      roundMs: ROUND_MS,
      handle: () => ({ kind: 'reject', reason: 'SyntaxError: not JSON' }),
    });
    expect(report.delivered).toBe(1);
    expect(queue.deadLetters[0]).toMatchObject({ reason: 'Rejected', detail: 'SyntaxError: not JSON' });
  });
});
