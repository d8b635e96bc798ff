// The broker core's properties (reference/seeds/000): time is passed in, nothing sleeps.
import { describe, expect, it } from 'vitest';
import { BrokerQueue, MinHeap, TimerHeap, Timers, backoffDelay, fullJitter, seededRandom, type BrokerQueueOptions, type Delivery } from '@/lib/broker';

const VISIBILITY = 30_000;
const BASE = 1_000;

function queueOf(options: Partial<BrokerQueueOptions> = {}): BrokerQueue {
  return new BrokerQueue({ maxReceives: 3, visibilityMs: VISIBILITY, backoffMs: BASE, maxRedrives: 2, jitter: false, ...options });
}

const bytes = (...values: number[]) => new Uint8Array(values);

function mustReceive(queue: BrokerQueue, now: number): Delivery {
  const delivery = queue.receive(now);
  if (delivery === undefined) throw new Error(`nothing visible at ${now}`);
  return delivery;
}

/** A queue (queueOf) with one message sent and received at 0: the queue and that first delivery. */
function oneInFlight(): { queue: BrokerQueue; first: Delivery } {
  const queue = queueOf();
  queue.send(bytes(1), 0);
  return { queue, first: mustReceive(queue, 0) };
}

/** Fails every delivery with `retry` until the message is parked; returns the time reached. */
function failUntilParked(queue: BrokerQueue, now: number): number {
  for (let delivery = queue.receive(now); delivery !== undefined; delivery = queue.receive(now)) {
    queue.settle(delivery, { kind: 'retry', error: 'boom' }, now);
    now += 10 * 60_000;
  }
  return now;
}

describe('send, receive, ack', () => {
  it('hands out messages in send order with their metadata and deletes them on ack', () => {
    const queue = queueOf();
    const first = queue.send(bytes(1), 100, { key: 'order-1' });
    const second = queue.send(bytes(2), 200);
    const delivery = mustReceive(queue, 1_000);
    expect(delivery).toMatchObject({ id: first, body: bytes(1), receives: 1, redrives: 0, key: 'order-1', enqueuedAt: 100 });
    expect(queue.stats).toMatchObject({ ready: 1, inFlight: 1, delayed: 0, dead: 0 });
    expect(queue.settle(delivery, { kind: 'ack' }, 1_001)).toBe(true);
    const next = mustReceive(queue, 1_002);
    expect(next.id).toBe(second);
    queue.settle(next, { kind: 'ack' }, 1_003);
    expect(queue.receive(VISIBILITY * 10)).toBeUndefined(); // acked messages never come back
    expect(queue.stats).toMatchObject({ ready: 0, inFlight: 0, delayed: 0, dead: 0 });
  });

  it('keeps the payload byte-exact even if the producer reuses its buffer', () => {
    const queue = queueOf();
    const buffer = bytes(0x00, 0xff, 0xfe);
    queue.send(buffer, 0);
    buffer.fill(7);
    expect(mustReceive(queue, 0).body).toEqual(bytes(0x00, 0xff, 0xfe));
  });

  it('keeps bodies of every size byte-exact through receive, dead-lettering and redrive, across arena chunks', () => {
    const queue = queueOf({ maxReceives: 1 });
    const random = seededRandom(3);
    // Empty, small, at and past the arena's per-body limit, and enough to fill several 256 KiB chunks.
    const sizes = [0, 1, 64, 4_096, 4_097, 70_000, ...Array.from({ length: 300 }, () => Math.floor(random() * 4_000))];
    const sent = sizes.map((n) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256)));
    const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'); // toEqual on 600 KB of bytes is slow
    const buffer = new Uint8Array(70_000);
    for (const body of sent) {
      buffer.set(body);
      queue.send(buffer.subarray(0, body.length), 0);
      buffer.fill(0xaa); // the producer reuses its buffer
    }
    for (const body of sent) {
      const d = mustReceive(queue, 1);
      expect(hex(d.body)).toBe(hex(body));
      queue.settle(d, { kind: 'reject', reason: 'bad' }, 1);
    }
    const dead = queue.deadLetters;
    expect(dead.map((l) => hex(l.message.body))).toEqual(sent.map(hex));
    expect(queue.redrive(sent.length, 2)).toBe(sent.length);
    for (const body of sent) expect(hex(mustReceive(queue, 3).body)).toBe(hex(body));

    // A retry's backoff and a visibility timeout take a message out of the arena: its bytes stay.
    const again = queueOf({ maxReceives: 3 });
    const [a, b] = [sent[10]!, sent[11]!];
    again.send(a, 0);
    again.send(b, 0);
    again.settle(mustReceive(again, 0), { kind: 'retry', error: 'busy' }, 0);
    mustReceive(again, 0); // b: never settled, it times out
    const later = VISIBILITY * 2;
    const back = [mustReceive(again, later), mustReceive(again, later)].sort((x, y) => x.id - y.id);
    expect(back.map((d) => hex(d.body))).toEqual([hex(a), hex(b)]);
  });

  it('rejects options that make no sense', () => {
    expect(() => queueOf({ maxReceives: 0 })).toThrow(RangeError);
    expect(() => queueOf({ visibilityMs: 0 })).toThrow(RangeError);
    expect(() => queueOf({ backoffMs: -1 })).toThrow(RangeError);
    expect(() => queueOf({ maxRedrives: -1 })).toThrow(RangeError);
    expect(() => queueOf().redrive(Number.NaN, 0)).toThrow(RangeError);
  });
});

describe('timers with lazy deletion', () => {
  it('an ack never touches the heap; the stale entry is skipped when it comes due', () => {
    const { queue, first: delivery } = oneInFlight();
    expect(queue.stats.timers).toBe(1);
    queue.settle(delivery, { kind: 'ack' }, 10);
    expect(queue.stats.timers).toBe(1); // still there: not searched for
    expect(queue.receive(VISIBILITY)).toBeUndefined(); // popped, found stale, skipped
    expect(queue.stats.timers).toBe(0);
  });

  it('leaves at most one stale entry per ack or retry, all gone once due', () => {
    const queue = queueOf({ maxReceives: 10 });
    for (let i = 0; i < 1_000; i++) {
      queue.send(bytes(i & 0xff), i);
      const delivery = mustReceive(queue, i);
      queue.settle(delivery, { kind: i % 2 === 0 ? 'ack' : 'retry' }, i);
    }
    // 1,000 visibility entries (all stale) plus 500 live backoff entries.
    expect(queue.stats).toMatchObject({ timers: 1_500, inFlight: 0, delayed: 500 });
    // Draining the retried messages pops everything due; acking them leaves one stale entry each.
    const later = 1_000 + VISIBILITY;
    for (let delivery = queue.receive(later); delivery !== undefined; delivery = queue.receive(later)) {
      queue.settle(delivery, { kind: 'ack' }, later);
    }
    expect(queue.stats).toMatchObject({ timers: 500, ready: 0, delayed: 0, inFlight: 0 });
    expect(queue.receive(later + VISIBILITY)).toBeUndefined();
    expect(queue.stats.timers).toBe(0);
  });
});

describe('stored bodies', () => {
  it('releases every body chunk once its messages are gone, on every path out of the queue', () => {
    // Small bodies share arena chunks, large ones have their own; a retry, a visibility timeout and a
    // dead letter each move a body out of its arena chunk. Once everything is acked, only the arena
    // chunk being filled is held: a leaked count would keep 256 KiB per chunk alive for good.
    const queue = queueOf({ maxReceives: 2, maxRedrives: 5 });
    let now = 0;
    for (let i = 0; i < 20_000; i++) queue.send(new Uint8Array(i % 100 === 0 ? 5_000 : 64).fill(i & 0xff), now);
    expect(queue.stats.bodyChunks).toBeGreaterThan(5);
    for (let i = 0; i < 20_000; i++) {
      const d = mustReceive(queue, now);
      if (i % 7 === 0) queue.settle(d, { kind: 'retry', error: 'later' }, now);
      else if (i % 11 === 0) queue.settle(d, { kind: 'reject', reason: 'bad' }, now);
      else if (i % 13 === 0)
        continue; // held past its visibility timeout
      else queue.settle(d, { kind: 'ack' }, now);
    }
    // The retried and timed-out ones come back; fail them to the DLQ, then redrive and ack all.
    now += 10 * VISIBILITY;
    for (let d = queue.receive(now); d !== undefined; d = queue.receive(now)) queue.settle(d, { kind: 'reject', reason: 'bad' }, now);
    expect(queue.stats).toMatchObject({ ready: 0, inFlight: 0, delayed: 0 });
    const dead = queue.stats.dead;
    expect(dead).toBeGreaterThan(2_000);
    expect(queue.stats.bodyChunks).toBe(1); // dead letters hold their own copies: only the arena being filled is left
    expect(queue.redrive(dead, now)).toBe(dead);
    for (let d = queue.receive(now); d !== undefined; d = queue.receive(now)) {
      expect(d.body.byteLength === 64 || d.body.byteLength === 5_000).toBe(true);
      queue.settle(d, { kind: 'ack' }, now);
    }
    expect(queue.stats).toMatchObject({ ready: 0, inFlight: 0, delayed: 0, dead: 0, bodyChunks: 1 });
  });
});

describe('settle of a delivery that is no longer current', () => {
  it('ignores a late ack after the visibility timeout; the message comes back with the delivery counted', () => {
    const { queue, first } = oneInFlight();
    expect(queue.settle(first, { kind: 'ack' }, VISIBILITY)).toBe(false); // due at 30 s: already timed out
    const second = mustReceive(queue, VISIBILITY);
    expect(second).toMatchObject({ id: first.id, receives: 2 });
    expect(second.receipt).not.toBe(first.receipt);
  });

  it('a stale receipt cannot settle the newer delivery of the same message', () => {
    const { queue, first } = oneInFlight();
    const second = mustReceive(queue, VISIBILITY); // first timed out, redelivered
    expect(queue.settle(first, { kind: 'ack' }, VISIBILITY + 1)).toBe(false);
    expect(queue.settle(first, { kind: 'reject', reason: 'late' }, VISIBILITY + 1)).toBe(false);
    expect(queue.stats).toMatchObject({ inFlight: 1, dead: 0 });
    expect(queue.settle(second, { kind: 'ack' }, VISIBILITY + 2)).toBe(true);
    expect(queue.stats).toMatchObject({ inFlight: 0, ready: 0 });
  });

  it('a bare id settles the current delivery; a second settle or a settle during backoff is ignored', () => {
    const { queue, first } = oneInFlight();
    const id = first.id;
    expect(queue.settle(id, { kind: 'retry' }, 5)).toBe(true);
    expect(queue.settle(id, { kind: 'ack' }, 6)).toBe(false); // waiting out its backoff, not held
    expect(queue.stats).toMatchObject({ delayed: 1, inFlight: 0 });
    expect(queue.settle(999, { kind: 'ack' }, 6)).toBe(false);
  });
});

describe('retry backoff', () => {
  it('doubles per receive from the base and caps at 2^10 × base', () => {
    const queue = queueOf({ maxReceives: 20 });
    queue.send(bytes(1), 0);
    let now = 0;
    const delays: number[] = [];
    for (let receive = 1; receive <= 13; receive++) {
      const delivery = mustReceive(queue, now);
      expect(delivery.receives).toBe(receive);
      queue.settle(delivery, { kind: 'retry' }, now);
      const delay = backoffDelay(receive, BASE);
      expect(queue.receive(now + delay - 1)).toBeUndefined(); // hidden for exactly the delay
      delays.push(delay);
      now += delay;
    }
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 1024, 1024].map((f) => f * BASE));
  });

  it('does not overflow for large bases (no 32-bit shift)', () => {
    expect(backoffDelay(11, 3_600_000)).toBe(3_600_000 * 1024);
    expect(backoffDelay(50, 3_600_000)).toBe(3_600_000 * 1024);
  });

  it('jitter is full, within [0, cap], and replays exactly from a seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const draws = Array.from({ length: 2_000 }, () => fullJitter(8_000, a));
    expect(draws).toEqual(Array.from({ length: 2_000 }, () => fullJitter(8_000, b)));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...draws)).toBeLessThanOrEqual(8_000);
    expect(draws.every(Number.isInteger)).toBe(true);
    // Spread over the whole range, not bunched at the cap: the point of full jitter.
    const mean = draws.reduce((sum, d) => sum + d, 0) / draws.length;
    expect(mean).toBeGreaterThan(3_600);
    expect(mean).toBeLessThan(4_400);
    expect(fullJitter(8_000, () => 0)).toBe(0);
    expect(fullJitter(8_000, () => 0.999_999_999)).toBe(8_000);
  });

  it('the queue draws its jitter from the seeded generator', () => {
    const queue = queueOf({ maxReceives: 20, jitter: true, seed: 7 });
    const expected = seededRandom(7);
    queue.send(bytes(1), 0);
    let now = 0;
    for (let receive = 1; receive <= 12; receive++) {
      const delivery = mustReceive(queue, now);
      queue.settle(delivery, { kind: 'retry' }, now);
      const delay = fullJitter(backoffDelay(receive, BASE), expected);
      if (delay > 0) expect(queue.receive(now + delay - 1)).toBeUndefined();
      now += delay;
    }
  });

  it('an injected random source bounds the delay at 0 and at the cap', () => {
    const low = queueOf({ jitter: true, random: () => 0 });
    low.send(bytes(1), 0);
    low.settle(mustReceive(low, 0), { kind: 'retry' }, 0);
    expect(low.receive(0)?.receives).toBe(2); // no wait at all

    const high = queueOf({ jitter: true, random: () => 0.999_999_999 });
    high.send(bytes(1), 0);
    high.settle(mustReceive(high, 0), { kind: 'retry' }, 0);
    expect(high.receive(BASE - 1)).toBeUndefined();
    expect(high.receive(BASE)?.receives).toBe(2);
  });
});

describe('dead-lettering', () => {
  it('parks a message when it comes up for receive with its receives at maxReceives', () => {
    const queue = queueOf();
    const poison = queue.send(bytes(1), 0);
    let now = 0;
    for (let i = 1; i <= 3; i++) {
      queue.settle(mustReceive(queue, now), { kind: 'retry', error: `attempt ${i} failed` }, now);
      now += 10 * 60_000;
    }
    expect(queue.stats.dead).toBe(0); // not yet: the limit is checked when it comes up
    expect(queue.receive(now)).toBeUndefined();
    expect(queue.deadLetters).toEqual([
      {
        message: { id: poison, body: bytes(1), receives: 3, redrives: 0, enqueuedAt: 0 },
        reason: 'MaxReceives',
        detail: 'attempt 3 failed',
        deadAt: now,
      },
    ]);
  });

  it('takes the next message in the same receive after parking one', () => {
    const queue = queueOf({ maxReceives: 2 });
    const poison = queue.send(bytes(1), 0);
    mustReceive(queue, 0);
    mustReceive(queue, VISIBILITY); // timed out once, now at its second receive
    const next = queue.send(bytes(2), VISIBILITY + 1);
    mustReceive(queue, VISIBILITY + 1);
    // Both time out; the poison comes up first, is parked, and the same call hands out the next.
    expect(mustReceive(queue, 2 * VISIBILITY + 1)).toMatchObject({ id: next, receives: 2 });
    expect(queue.deadLetters.map((d) => [d.message.id, d.reason])).toEqual([[poison, 'MaxReceives']]);
  });

  it('reject dead-letters at once, skipping the remaining attempts', () => {
    const queue = queueOf({ maxReceives: 5 });
    queue.send(bytes(1), 0);
    expect(queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'ZodError: order.id required' }, 3)).toBe(true);
    expect(queue.deadLetters).toEqual([expect.objectContaining({ reason: 'Rejected', detail: 'ZodError: order.id required', deadAt: 3 })]);
    expect(queue.deadLetters[0]?.message.receives).toBe(1);
    expect(queue.receive(10 * VISIBILITY)).toBeUndefined();
  });

  it('a timeout counts as a receive: a consumer that never settles parks the message after maxReceives', () => {
    const queue = queueOf({ maxReceives: 2 });
    queue.send(bytes(1), 0);
    expect(mustReceive(queue, 0).receives).toBe(1);
    expect(queue.receive(VISIBILITY - 1)).toBeUndefined();
    expect(mustReceive(queue, VISIBILITY).receives).toBe(2);
    expect(queue.receive(2 * VISIBILITY)).toBeUndefined();
    expect(queue.deadLetters).toEqual([expect.objectContaining({ reason: 'MaxReceives', detail: 'visibility timeout expired', deadAt: 2 * VISIBILITY })]);
  });

  it('keeps counts O(1) and consistent across every state', () => {
    const queue = queueOf({ maxReceives: 1 });
    queue.send(bytes(1), 0);
    queue.send(bytes(2), 0);
    queue.send(bytes(3), 0);
    const a = mustReceive(queue, 0);
    const b = mustReceive(queue, 0);
    expect(queue.stats).toMatchObject({ ready: 1, inFlight: 2, delayed: 0, dead: 0 });
    queue.settle(a, { kind: 'retry' }, 0);
    queue.settle(b, { kind: 'reject', reason: 'bad' }, 0);
    expect(queue.stats).toMatchObject({ ready: 1, inFlight: 0, delayed: 1, dead: 1 });
    expect(mustReceive(queue, BASE).id).toBe(3); // a is back behind message 3
    expect(queue.stats).toMatchObject({ ready: 1, inFlight: 1, delayed: 0, dead: 1 });
    expect(queue.receive(BASE)).toBeUndefined(); // a comes up with receives = maxReceives: parked
    expect(queue.stats).toMatchObject({ ready: 0, inFlight: 1, delayed: 0, dead: 2 });
  });
});

describe('redrive', () => {
  it('moves up to max dead letters back, oldest first, with the receive count reset', () => {
    const queue = queueOf();
    for (let i = 1; i <= 3; i++) queue.send(bytes(i), i);
    for (let i = 0; i < 3; i++) queue.settle(mustReceive(queue, 10), { kind: 'reject', reason: `r${i}` }, 10);
    expect(queue.redrive(2, 20)).toBe(2);
    expect(queue.deadLetters.map((d) => d.message.id)).toEqual([3]);
    const again = mustReceive(queue, 20);
    expect(again).toMatchObject({ id: 1, receives: 1, redrives: 1, enqueuedAt: 1 }); // original enqueue time kept
    expect(mustReceive(queue, 20)).toMatchObject({ id: 2, receives: 1, redrives: 1 });
    expect(queue.redrive(0, 30)).toBe(0);
    expect(queue.redrive(10, 30)).toBe(1);
  });

  it('a redriven message gets the full maxReceives again', () => {
    const queue = queueOf();
    queue.send(bytes(1), 0);
    let now = failUntilParked(queue, 0);
    expect(queue.deadLetters[0]?.message.receives).toBe(3);
    queue.redrive(1, now);
    let deliveries = 0;
    for (let d = queue.receive(now); d !== undefined; d = queue.receive(now)) {
      deliveries += 1;
      queue.settle(d, { kind: 'retry' }, now);
      now += 10 * 60_000;
    }
    expect(deliveries).toBe(3);
  });

  it('leaves a message past maxRedrives parked as RedriveLoop, not counted as moved', () => {
    const queue = queueOf({ maxRedrives: 2 });
    const looping = queue.send(bytes(1), 0);
    let now = failUntilParked(queue, 0);
    for (let redrive = 1; redrive <= 2; redrive++) {
      expect(queue.redrive(1, now)).toBe(1);
      now = failUntilParked(queue, now);
    }
    const fine = queue.send(bytes(2), now);
    queue.settle(mustReceive(queue, now), { kind: 'reject', reason: 'bad' }, now);
    expect(queue.redrive(1, now)).toBe(1); // the looping one is skipped, the next one moves
    expect(queue.deadLetters).toEqual([expect.objectContaining({ reason: 'RedriveLoop', message: expect.objectContaining({ id: looping, redrives: 2 }) })]);
    expect(mustReceive(queue, now).id).toBe(fine);
    expect(queue.redrive(10, now)).toBe(0);
    expect(queue.stats.dead).toBe(1);
  });

  it('messages that became visible before the redrive keep their place ahead of it', () => {
    const queue = queueOf();
    const early = queue.send(bytes(1), 0);
    const parked = queue.send(bytes(2), 0);
    queue.settle(mustReceive(queue, 0), { kind: 'retry' }, 0); // visible again at BASE
    queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'bad' }, 0);
    queue.redrive(1, BASE);
    expect(mustReceive(queue, BASE).id).toBe(early);
    expect(mustReceive(queue, BASE).id).toBe(parked);
  });
});

describe('per-key order', () => {
  function keyed(queue: BrokerQueue, keys: string[], now = 0): number[] {
    return keys.map((key) => queue.send(new TextEncoder().encode(key), now, { key }));
  }

  it('parks later messages of a dead key behind it, and releases them with it in send order', () => {
    const queue = queueOf({ orderByKey: true });
    const [a1, a2, b1, a3] = keyed(queue, ['a', 'a', 'b', 'a']);
    queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'bad' }, 0); // a1 dead: key a parked
    expect(mustReceive(queue, 1).id).toBe(b1); // a2 parked on the way; other keys flow
    expect(queue.receive(1)).toBeUndefined(); // a3 parked too
    const [a4] = keyed(queue, ['a'], 2);
    expect(queue.receive(2)).toBeUndefined();
    expect(queue.deadLetters.map((d) => [d.message.id, d.reason, d.detail])).toEqual([
      [a1, 'Rejected', 'bad'],
      [a2, 'KeyParked', `behind message ${a1}`],
      [a3, 'KeyParked', `behind message ${a1}`],
      [a4, 'KeyParked', `behind message ${a1}`],
    ]);
    expect(queue.redrive(10, 3)).toBe(4);
    const order = [1, 2, 3, 4].map(() => {
      const d = mustReceive(queue, 3);
      queue.settle(d, { kind: 'ack' }, 3);
      return d.id;
    });
    expect(order).toEqual([a1, a2, a3, a4]);
    expect(queue.stats.dead).toBe(0);
  });

  it('releases parked messages in send order even when they were parked out of order', () => {
    const queue = queueOf({ orderByKey: true });
    const [a1, a2, a3] = keyed(queue, ['a', 'a', 'a']);
    const first = mustReceive(queue, 0);
    const second = mustReceive(queue, 0); // both a1 and a2 in flight
    queue.settle(first, { kind: 'reject', reason: 'bad' }, 0);
    queue.settle(second, { kind: 'retry' }, 0); // a2 backs off until BASE
    expect(queue.receive(0)).toBeUndefined(); // a3 parked first
    expect(queue.receive(BASE)).toBeUndefined(); // then a2
    expect(queue.deadLetters.map((d) => d.message.id)).toEqual([a1, a3, a2]);
    expect(queue.redrive(10, BASE)).toBe(3);
    expect([0, 1, 2].map(() => mustReceive(queue, BASE).id)).toEqual([a1, a2, a3]);
  });

  it('within a small max, releases the head first and keeps the rest parked behind the next one', () => {
    const queue = queueOf({ orderByKey: true });
    const [a1, a2, a3] = keyed(queue, ['a', 'a', 'a']);
    queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'bad' }, 0);
    expect(queue.receive(0)).toBeUndefined();
    expect(queue.redrive(1, 1)).toBe(1);
    const [a4] = keyed(queue, ['a'], 1);
    expect(mustReceive(queue, 1).id).toBe(a1); // released: not parked behind a2
    expect(queue.receive(1)).toBeUndefined(); // a4 now waits behind a2
    expect(queue.deadLetters.map((d) => d.message.id)).toEqual([a2, a3, a4]);
    expect(queue.redrive(2, 2)).toBe(2);
    expect(queue.deadLetters.map((d) => d.message.id)).toEqual([a4]);
    expect([mustReceive(queue, 2).id, mustReceive(queue, 2).id]).toEqual([a2, a3]);
  });

  it('a message of the key already waiting when the key is released goes after the released ones', () => {
    const queue = queueOf({ orderByKey: true });
    const [a1, a2] = keyed(queue, ['a', 'a']);
    queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'bad' }, 0);
    expect(queue.receive(0)).toBeUndefined(); // a2 parked
    const [a3] = keyed(queue, ['a'], 1); // waiting in the ready queue, ahead of any redrive
    expect(queue.redrive(10, 2)).toBe(2);
    expect([0, 1, 2].map(() => mustReceive(queue, 2).id)).toEqual([a1, a2, a3]);
  });

  it('a head stuck in RedriveLoop keeps its key parked', () => {
    const queue = queueOf({ orderByKey: true, maxRedrives: 0 });
    const [a1, a2] = keyed(queue, ['a', 'a']);
    queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'bad' }, 0);
    expect(queue.receive(0)).toBeUndefined();
    expect(queue.redrive(10, 1)).toBe(0);
    expect(queue.deadLetters.map((d) => [d.message.id, d.reason])).toEqual([
      [a1, 'RedriveLoop'],
      [a2, 'KeyParked'],
    ]);
  });

  it('is off by default: keys do not park each other', () => {
    const queue = queueOf();
    const [, a2] = keyed(queue, ['a', 'a']);
    queue.settle(mustReceive(queue, 0), { kind: 'reject', reason: 'bad' }, 0);
    expect(mustReceive(queue, 0)).toMatchObject({ id: a2, key: 'a' });
  });
});

describe('MinHeap', () => {
  it('pops in ascending order, matching a sort', () => {
    const random = seededRandom(1);
    const heap = new MinHeap<number>((a, b) => a < b);
    const values: number[] = [];
    const popped: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const v = Math.floor(random() * 500);
      values.push(v);
      heap.push(v);
      if (i % 3 === 0) popped.push(heap.pop() as number); // interleave pops with pushes
    }
    while (heap.size > 0) popped.push(heap.pop() as number);
    expect(heap.pop()).toBeUndefined();
    expect(popped).toHaveLength(values.length);
    expect([...popped].sort((a, b) => a - b)).toEqual([...values].sort((a, b) => a - b));
    const tail = popped.slice(Math.ceil(2_000 / 3));
    expect(tail).toEqual([...tail].sort((a, b) => a - b)); // the final drain is sorted
  });
});

describe('Timers', () => {
  it('expires in the same (time, lease) order as the heap alone, in order or not, with ties', () => {
    const random = seededRandom(7);
    const timers = new Timers();
    const heap = new TimerHeap();
    const fromTimers: number[] = [];
    const fromHeap: number[] = [];
    let now = 0;
    for (let lease = 1; lease <= 20_000; lease++) {
      // Mostly a constant timeout from a clock that moves forward (the run), with backoffs, ties and a step back.
      const r = random();
      const at = r < 0.7 ? now + 30 : r < 0.9 ? now + Math.floor(random() * 40) : r < 0.95 ? now + 30 : Math.max(0, now - 5);
      timers.push(at, lease, lease);
      heap.push(at, lease, lease);
      if (random() < 0.4) now += 1;
      if (lease % 7 === 0) {
        while (timers.popDue(now)) fromTimers.push(timers.dueId);
        while (heap.peekAt() <= now) {
          fromHeap.push(heap.peekId());
          heap.pop();
        }
        expect(timers.size).toBe(heap.size);
      }
    }
    while (timers.popDue(Infinity)) fromTimers.push(timers.dueId);
    while (heap.size > 0) {
      fromHeap.push(heap.peekId());
      heap.pop();
    }
    expect(fromTimers).toHaveLength(20_000);
    expect(fromTimers).toEqual(fromHeap);
    expect(timers.popDue(Infinity)).toBe(false);
  });
});
