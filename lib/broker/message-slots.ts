// The broker's stored messages, one slot each in columns (typed arrays, see columns.ts) rather than
// an object per message: a backlog keeps hundreds of thousands alive at once, and as objects they
// were copied by young-generation collections, then promoted, then traced. What a message rarely has
// (an ordering key, a last failure) is in maps by slot; bodies are in chunks by index, counted, so a
// chunk goes when its last message does. A slot is freed when its message is acked or dead-lettered
// (a dead letter keeps a Message of its own) and reused by a later send or redrive.
import { f64, grow, i32, u8 } from './columns';

/**
 * Bodies up to this size are copied into shared arena chunks of ARENA_CHUNK bytes rather than each
 * into a Uint8Array of its own: hundreds of thousands of small typed arrays alive at once are most of
 * a backlog's cost in V8's collector, a few large ones cost nothing. A chunk lives while any stored
 * message in it does, so a message that leaves the queue's order (a retry's backoff, a visibility
 * timeout, a dead letter, which may stay for days) first gets a copy of its own (ownBody): a chunk is
 * held only by messages still moving through in the order they were sent.
 */
const ARENA_MAX_BODY = 4 * 1024;
const ARENA_CHUNK = 256 * 1024;
const INITIAL = 1024;

export class MessageSlots {
  /** The message id (ids count sends, so they order messages by send). */
  id = f64(INITIAL);
  /** The body is bytes [offset, offset + length) of chunks[chunk[slot]]. */
  chunk = i32(INITIAL);
  offset = i32(INITIAL);
  length = f64(INITIAL);
  /** Deliveries so far; a redrive starts a new slot at 0. */
  receives = f64(INITIAL);
  redrives = f64(INITIAL);
  enqueuedAt = f64(INITIAL);
  /** While hidden: until when. */
  until = f64(INITIAL);
  /** While hidden: matches the timer entry that may end this hiding; 0 when not hidden. */
  lease = f64(INITIAL);
  /** While hidden: the receipt of the consumer holding it, 0 during a retry backoff. */
  receipt = f64(INITIAL);
  /** 1: redriven under per-key order and not yet received (later messages of its key wait for it). */
  released = u8(INITIAL);

  private readonly keys = new Map<number, string>();
  private readonly failures = new Map<number, string>();
  private free = i32(INITIAL);
  private freeCount = 0;
  /** Slots ever handed out: [0, used) exist. */
  private used = 0;

  /** Body chunks by index, with the slots using each (+1 for the arena being filled). */
  private readonly chunks: (Uint8Array | undefined)[] = [];
  private readonly refs: number[] = [];
  private readonly freeChunks: number[] = [];
  private arena = -1;
  private arenaUsed = 0;

  /**
   * A slot for a new, undelivered message. `copy`: the body is the producer's and is copied (it may
   * reuse its buffer); otherwise it is the queue's own already (a dead letter's, redriven).
   */
  add(id: number, body: Uint8Array, copy: boolean, redrives: number, key: string | undefined, enqueuedAt: number, released: boolean): number {
    let slot: number;
    if (this.freeCount > 0) {
      slot = this.free[--this.freeCount]!;
    } else {
      if (this.used === this.id.length) this.grow();
      slot = this.used++;
    }
    const n = body.byteLength;
    if (copy && n <= ARENA_MAX_BODY) {
      if (this.arena === -1 || this.arenaUsed + n > ARENA_CHUNK) {
        if (this.arena !== -1) this.unref(this.arena);
        this.arena = this.addChunk(new Uint8Array(ARENA_CHUNK));
        this.arenaUsed = 0;
      }
      this.chunks[this.arena]!.set(body, this.arenaUsed);
      this.refs[this.arena]! += 1;
      this.chunk[slot] = this.arena;
      this.offset[slot] = this.arenaUsed;
      this.arenaUsed += n;
    } else {
      this.chunk[slot] = this.addChunk(copy ? new Uint8Array(body) : body);
      this.offset[slot] = 0;
    }
    this.id[slot] = id;
    this.length[slot] = n;
    this.receives[slot] = 0;
    this.redrives[slot] = redrives;
    this.enqueuedAt[slot] = enqueuedAt;
    this.until[slot] = 0;
    this.lease[slot] = 0;
    this.receipt[slot] = 0;
    this.released[slot] = released ? 1 : 0;
    if (key !== undefined) this.keys.set(slot, key);
    return slot;
  }

  /** Frees the slot and its hold on its body's chunk. */
  drop(slot: number): void {
    this.unref(this.chunk[slot]!);
    if (this.keys.size > 0) this.keys.delete(slot);
    if (this.failures.size > 0) this.failures.delete(slot);
    this.lease[slot] = 0; // a timer entry still in the heap for it never matches again
    if (this.freeCount === this.free.length) this.free = grow(this.free, this.free.length * 2);
    this.free[this.freeCount++] = slot;
  }

  /** Body chunks alive: arena chunks with a message in them (or being filled), bodies of their own. */
  get chunksHeld(): number {
    return this.chunks.length - this.freeChunks.length;
  }

  keyOf(slot: number): string | undefined {
    return this.keys.size === 0 ? undefined : this.keys.get(slot);
  }

  failureOf(slot: number): string | undefined {
    return this.failures.size === 0 ? undefined : this.failures.get(slot);
  }

  setFailure(slot: number, failure: string | undefined): void {
    if (failure === undefined) this.failures.delete(slot);
    else this.failures.set(slot, failure);
  }

  /** A view of the stored bytes (no copy). */
  body(slot: number): Uint8Array {
    const offset = this.offset[slot]!;
    return this.chunks[this.chunk[slot]!]!.subarray(offset, offset + this.length[slot]!);
  }

  /** Moves the body out of a shared arena chunk into a chunk of its own (see ARENA_MAX_BODY). */
  ownBody(slot: number): void {
    const c = this.chunk[slot]!;
    const chunk = this.chunks[c]!;
    const length = this.length[slot]!;
    if (chunk.byteLength === length) return;
    const offset = this.offset[slot]!;
    this.chunk[slot] = this.addChunk(chunk.slice(offset, offset + length));
    this.offset[slot] = 0;
    this.unref(c);
  }

  private addChunk(bytes: Uint8Array): number {
    const c = this.freeChunks.pop();
    if (c === undefined) {
      this.chunks.push(bytes);
      this.refs.push(1);
      return this.chunks.length - 1;
    }
    this.chunks[c] = bytes;
    this.refs[c] = 1;
    return c;
  }

  private unref(c: number): void {
    if (--this.refs[c]! > 0) return;
    this.chunks[c] = undefined;
    this.freeChunks.push(c);
  }

  private grow(): void {
    const size = this.id.length * 2;
    this.id = grow(this.id, size);
    this.chunk = grow(this.chunk, size);
    this.offset = grow(this.offset, size);
    this.length = grow(this.length, size);
    this.receives = grow(this.receives, size);
    this.redrives = grow(this.redrives, size);
    this.enqueuedAt = grow(this.enqueuedAt, size);
    this.until = grow(this.until, size);
    this.lease = grow(this.lease, size);
    this.receipt = grow(this.receipt, size);
    this.released = grow(this.released, size);
  }
}
