// The ready queue: message slots (see message-slots.ts) in a ring buffer of 32-bit integers that
// doubles in place when full (columns.ts). Push and shift are O(1), and a backed-up source's
// millions of waiting messages are one typed array, nothing for V8's collector to trace or copy.
import { growRing, i32 } from './columns';

export class SlotFifo {
  private ring = i32(1024);
  private head = 0;
  private n = 0;

  get size(): number {
    return this.n;
  }

  push(slot: number): void {
    if (this.n === this.ring.length) this.grow();
    this.ring[(this.head + this.n) & (this.ring.length - 1)] = slot;
    this.n += 1;
  }

  /** The oldest slot, or -1 when the queue is empty. */
  shift(): number {
    if (this.n === 0) return -1;
    const slot = this.ring[this.head]!;
    this.head = (this.head + 1) & (this.ring.length - 1);
    this.n -= 1;
    return slot;
  }

  private grow(): void {
    this.ring = growRing(this.ring, this.head);
  }
}
