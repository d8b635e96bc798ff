// The broker core: the semantics of the reference implementation (reference/seeds/000) in
// TypeScript. Pure and deterministic: time comes in as `now` (ms) and nothing here reads a clock or
// does I/O, so tests and simulations replay exactly. lib/runtime applies the same rules on BullMQ.
import { backoffDelay, fullJitter, seededRandom } from './backoff';
import { SlotFifo } from './fifo';
import { MessageSlots } from './message-slots';
import { Timers } from './timers';

export type MessageId = number;

export type DeadLetterReason = 'MaxReceives' | 'Rejected' | 'KeyParked' | 'RedriveLoop';

export interface Message {
  readonly id: MessageId;
  readonly body: Uint8Array;
  /** Deliveries so far; a redrive resets it. */
  readonly receives: number;
  /** Times the message was sent back from the dead-letter queue. */
  readonly redrives: number;
  readonly key?: string;
  /** Original send time, kept across redrives (the SQS clock that retention runs on). */
  readonly enqueuedAt: number;
}

/** One delivery of a message, as handed out by receive(). */
export interface Delivery extends Message {
  /** Names this delivery: settling with the Delivery, not the bare id, can never act on a later one. */
  readonly receipt: number;
}

export type Outcome =
  | { kind: 'ack' }
  | { kind: 'retry'; error?: string } // transient: back off, the receive count decides
  | { kind: 'reject'; reason: string }; // permanent: dead-letter now, skip the remaining attempts

export interface DeadLetter {
  readonly message: Message;
  readonly reason: DeadLetterReason;
  /** Rejected: the reject reason; MaxReceives: the last failure; KeyParked: the message it waits behind. */
  readonly detail?: string;
  readonly deadAt: number;
}

export interface BrokerQueueOptions {
  /** Deliveries before a message is parked with MaxReceives; Infinity retries forever. */
  maxReceives: number;
  visibilityMs: number;
  backoffMs: number;
  /** Redrives allowed per message; one more leaves it parked as RedriveLoop. Default: unlimited. */
  maxRedrives?: number;
  /** Full jitter on retry backoff. Pass `random` or `seed` for a reproducible run; else Math.random. */
  jitter?: boolean;
  random?: () => number;
  seed?: number;
  /**
   * Per-key order (off by default, a per-source option in docs/design.md): once a key has a dead
   * letter, later messages with that key are parked behind it (KeyParked) and redriven with it, in
   * send order.
   */
  orderByKey?: boolean;
}

export interface BrokerStats {
  ready: number;
  inFlight: number;
  /** Waiting out a retry backoff. */
  delayed: number;
  dead: number;
  /** Heap entries, stale ones included: the cost of lazy deletion, bounded by recent settles. */
  timers: number;
  /** Body chunks held (shared arena chunks and bodies of their own): what stored bodies cost. */
  bodyChunks: number;
}

interface StoredDeadLetter {
  readonly message: Message;
  reason: DeadLetterReason;
  readonly detail?: string;
  readonly deadAt: number;
}

const TIMEOUT_FAILURE = 'visibility timeout expired';

// Message ids are assigned in send order, so comparing ids compares send order (per-key order).
// Stored messages are slots of a MessageSlots (no object per message: see message-slots.ts); the
// ready queue and the timers hold slot numbers.
export class BrokerQueue {
  private readonly maxReceives: number;
  private readonly visibilityMs: number;
  private readonly backoffMs: number;
  private readonly maxRedrives: number;
  private readonly orderByKey: boolean;
  private readonly random: (() => number) | undefined;

  private readonly slots = new MessageSlots();
  private readonly ready = new SlotFifo();
  /** Slots of the messages held by a consumer or waiting out a backoff, by message id. */
  private readonly hidden = new Map<MessageId, number>();
  private readonly timers = new Timers();
  // A Map keeps insertion (FIFO) order and deletes from the middle in O(1) for redrive.
  private readonly dlq = new Map<MessageId, StoredDeadLetter>();
  /** Per key: ids of its dead letters in send order; the first is the one the others wait behind. */
  private readonly parkedKeys = new Map<string, MessageId[]>();
  /** Per key: ids of redriven messages still in the ready queue, in send order. */
  private readonly releasedWaiting = new Map<string, MessageId[]>();

  private nextId = 0;
  private leases = 0;
  private receipts = 0;
  private inFlightCount = 0;
  private delayedCount = 0;

  constructor(options: BrokerQueueOptions) {
    const { maxReceives, visibilityMs, backoffMs, maxRedrives = Infinity } = options;
    if (!(maxReceives >= 1)) throw new RangeError('maxReceives must be at least 1');
    if (!(visibilityMs > 0)) throw new RangeError('visibilityMs must be positive');
    if (!(backoffMs >= 0)) throw new RangeError('backoffMs must not be negative');
    if (!(maxRedrives >= 0)) throw new RangeError('maxRedrives must not be negative');
    this.maxReceives = maxReceives;
    this.visibilityMs = visibilityMs;
    this.backoffMs = backoffMs;
    this.maxRedrives = maxRedrives;
    this.orderByKey = options.orderByKey ?? false;
    this.random = options.jitter ? (options.random ?? (options.seed === undefined ? Math.random : seededRandom(options.seed))) : undefined;
  }

  send(body: Uint8Array, now: number, options: { key?: string } = {}): MessageId {
    this.nextId += 1;
    // A copy: the producer may reuse its buffer; the payload must stay byte-exact.
    this.ready.push(this.slots.add(this.nextId, body, true, 0, options.key, now, false));
    return this.nextId;
  }

  /**
   * The next visible message, or undefined. A message whose receives reached maxReceives is parked
   * here, when it comes up (as SQS does), and the next one is taken.
   */
  receive(now: number): Delivery | undefined {
    this.expireTimers(now);
    const slots = this.slots;
    for (let slot = this.ready.shift(); slot !== -1; slot = this.ready.shift()) {
      const id = slots.id[slot]!;
      const key = this.orderByKey ? slots.keyOf(slot) : undefined;
      if (key !== undefined) {
        const waiting = this.releasedWaiting.get(key);
        if (slots.released[slot] === 1) {
          slots.released[slot] = 0;
          this.unwait(key, id);
        } else if (waiting !== undefined && (waiting[0] as MessageId) < id) {
          this.ready.push(slot); // a redriven, earlier message of its key goes first
          continue;
        }
      }
      if (slots.receives[slot]! >= this.maxReceives) {
        this.deadLetter(slot, 'MaxReceives', slots.failureOf(slot), now);
        continue;
      }
      const blocker = key === undefined ? undefined : this.parkedKeys.get(key)?.[0];
      if (blocker !== undefined && blocker < id) {
        this.deadLetter(slot, 'KeyParked', `behind message ${blocker}`, now);
        continue;
      }
      slots.receives[slot] = slots.receives[slot]! + 1;
      const receipt = ++this.receipts;
      // Hidden until the visibility timeout: a consumer that crashes or stalls fails this delivery.
      this.hide(slot, now + this.visibilityMs, receipt);
      this.inFlightCount += 1;
      return this.deliveryOf(slot, receipt);
    }
    return undefined;
  }

  /**
   * Settles a delivery; returns whether it acted. Only the current delivery, before its visibility
   * timeout, can be settled: a late ack (the message is visible again or redelivered), a second
   * settle, or a settle with an older Delivery's receipt is ignored. A bare id settles the current one.
   */
  settle(delivery: MessageId | Pick<Delivery, 'id' | 'receipt'>, outcome: Outcome, now: number): boolean {
    const id = typeof delivery === 'number' ? delivery : delivery.id;
    const slot = this.hidden.get(id);
    const slots = this.slots;
    if (slot === undefined || slots.receipt[slot] === 0 || now >= slots.until[slot]!) return false;
    if (typeof delivery !== 'number' && delivery.receipt !== slots.receipt[slot]) return false;
    // The timer entry stays: it no longer matches a lease and is skipped when it comes due.
    this.hidden.delete(id);
    this.inFlightCount -= 1;
    switch (outcome.kind) {
      case 'ack':
        slots.drop(slot);
        break;
      case 'retry': {
        slots.ownBody(slot);
        slots.setFailure(slot, outcome.error);
        const cap = backoffDelay(slots.receives[slot]!, this.backoffMs);
        this.hide(slot, now + (this.random === undefined ? cap : fullJitter(cap, this.random)));
        this.delayedCount += 1;
        break;
      }
      case 'reject':
        this.deadLetter(slot, 'Rejected', outcome.reason, now);
        break;
    }
    return true;
  }

  /**
   * Moves up to `max` dead letters back to the ready queue, oldest first, receive count reset and
   * redrive count raised. A message past maxRedrives stays parked as RedriveLoop and is not counted.
   * Under per-key order a parked key's messages go in send order, right behind the one they waited for.
   */
  redrive(max: number, now: number): number {
    if (!(max >= 0)) throw new RangeError('max must not be negative');
    // Messages that became visible before this instant keep their place ahead of the redriven ones.
    this.expireTimers(now);
    let moved = 0;
    for (const letter of this.dlq.values()) {
      if (moved >= max) break;
      const parked = this.keyParkOf(letter.message);
      if (parked !== undefined && parked[0] !== letter.message.id) continue; // it moves after its blocker
      moved += this.release(letter, parked, max - moved);
    }
    return moved;
  }

  /** A snapshot, oldest first. */
  get deadLetters(): readonly DeadLetter[] {
    return Array.from(this.dlq.values());
  }

  /** O(1). Messages whose timer is due count as in flight or delayed until the next receive. */
  get stats(): BrokerStats {
    return {
      ready: this.ready.size,
      inFlight: this.inFlightCount,
      delayed: this.delayedCount,
      dead: this.dlq.size,
      timers: this.timers.size,
      bodyChunks: this.slots.chunksHeld,
    };
  }

  private hide(slot: number, until: number, receipt = 0): void {
    const lease = ++this.leases;
    const slots = this.slots;
    slots.until[slot] = until;
    slots.lease[slot] = lease;
    slots.receipt[slot] = receipt;
    this.hidden.set(slots.id[slot]!, slot);
    this.timers.push(until, lease, slot);
  }

  // Lazy deletion: entries of acked, settled or re-hidden messages are dropped here, never searched for.
  private expireTimers(now: number): void {
    const timers = this.timers;
    const slots = this.slots;
    while (timers.popDue(now)) {
      const slot = timers.dueId;
      // A freed slot's lease is 0 and a reused one's is newer: neither matches a stale entry.
      if (slots.lease[slot] !== timers.dueLease) continue;
      slots.lease[slot] = 0;
      this.hidden.delete(slots.id[slot]!);
      if (slots.receipt[slot] === 0) {
        this.delayedCount -= 1;
      } else {
        this.inFlightCount -= 1;
        slots.setFailure(slot, TIMEOUT_FAILURE); // the timed-out delivery stays counted
        slots.ownBody(slot);
      }
      this.ready.push(slot);
    }
  }

  /** Parks the message of `slot` (a Message of its own, body copied out of the arena) and frees the slot. */
  private deadLetter(slot: number, reason: DeadLetterReason, detail: string | undefined, now: number): void {
    this.slots.ownBody(slot);
    const { receipt: _, ...message }: Delivery = this.deliveryOf(slot, 0); // a dead letter keeps no receipt
    this.slots.drop(slot);
    this.dlq.set(message.id, { message, reason, ...(detail === undefined ? {} : { detail }), deadAt: now });
    // An older message of the key (back from a backoff) parks in front of newer ones.
    if (this.orderByKey && message.key !== undefined) insertSorted(this.parkedKeys, message.key, message.id);
  }

  private keyParkOf(message: Message): MessageId[] | undefined {
    return this.orderByKey && message.key !== undefined ? this.parkedKeys.get(message.key) : undefined;
  }

  /** Releases `first` and, under per-key order, the key's messages parked behind it, within budget. */
  private release(first: StoredDeadLetter, parked: MessageId[] | undefined, budget: number): number {
    let released = 0;
    for (let letter: StoredDeadLetter | undefined = first; letter !== undefined && released < budget; ) {
      const { message } = letter;
      if (message.redrives >= this.maxRedrives) {
        letter.reason = 'RedriveLoop'; // it keeps coming back dead; anything parked behind it waits
        break;
      }
      this.dlq.delete(message.id);
      this.ready.push(this.slots.add(message.id, message.body, false, message.redrives + 1, message.key, message.enqueuedAt, parked !== undefined));
      released += 1;
      if (parked === undefined || message.key === undefined) break;
      insertSorted(this.releasedWaiting, message.key, message.id);
      parked.shift();
      const next = parked[0];
      if (next === undefined) {
        this.parkedKeys.delete(message.key);
        break;
      }
      letter = this.dlq.get(next);
    }
    return released;
  }

  private unwait(key: string, id: MessageId): void {
    const waiting = this.releasedWaiting.get(key) ?? [];
    waiting.splice(waiting.indexOf(id), 1);
    if (waiting.length === 0) this.releasedWaiting.delete(key);
  }

  /** The delivery handed out, built at once (one object, the body a view of the stored bytes). */
  private deliveryOf(slot: number, receipt: number): Delivery {
    const slots = this.slots;
    const id = slots.id[slot]!;
    const body = slots.body(slot);
    const receives = slots.receives[slot]!;
    const redrives = slots.redrives[slot]!;
    const key = slots.keyOf(slot);
    const enqueuedAt = slots.enqueuedAt[slot]!;
    return key === undefined ? { id, body, receives, redrives, enqueuedAt, receipt } : { id, body, receives, redrives, key, enqueuedAt, receipt };
  }
}

/** Adds `id` to the key's ascending id list; usually the newest, so the scan is short. */
function insertSorted(lists: Map<string, MessageId[]>, key: string, id: MessageId): void {
  const ids = lists.get(key);
  if (ids === undefined) {
    lists.set(key, [id]);
    return;
  }
  let at = ids.length;
  while (at > 0 && (ids[at - 1] as MessageId) > id) at -= 1;
  ids.splice(at, 0, id);
}
