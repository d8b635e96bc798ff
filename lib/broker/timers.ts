// The broker's timers: a TimerHeap and, beside it, a FIFO run of entries pushed in order. A queue's
// visibility timeout is one constant, so while time only moves forward every delivery's timer comes
// after the last one: those go to the run (push and pop O(1), no sifting through a heap of hundreds
// of thousands); a timer that would come before the run's last (a retry backoff, a shorter one, a
// clock that stepped back) goes to the heap. The earliest of the two heads is always next, by the
// same (at, lease) order the heap alone kept, so what expires, and when, is unchanged.
import { f64, growRing } from './columns';
import { TimerHeap } from './timer-heap';

export class Timers {
  private readonly heap = new TimerHeap();
  // The run: three parallel ring buffers (at, lease, id), from head, n long.
  private at = f64(1024);
  private lease = f64(1024);
  private id = f64(1024);
  private head = 0;
  private n = 0;

  get size(): number {
    return this.n + this.heap.size;
  }

  push(at: number, lease: number, id: number): void {
    if (this.n > 0) {
      const last = (this.head + this.n - 1) & (this.at.length - 1);
      const lastAt = this.at[last]!;
      if (at < lastAt || (at === lastAt && lease < this.lease[last]!)) {
        this.heap.push(at, lease, id);
        return;
      }
    }
    if (this.n === this.at.length) this.grow();
    const i = (this.head + this.n) & (this.at.length - 1);
    this.at[i] = at;
    this.lease[i] = lease;
    this.id[i] = id;
    this.n += 1;
  }

  /** The lease and id of the entry popDue() took last. */
  dueLease = 0;
  dueId = 0;

  /** Takes the earliest entry if it is due at `now` (into dueLease, dueId); false when none is. */
  popDue(now: number): boolean {
    if (this.runFirst()) {
      const h = this.head;
      if (this.at[h]! > now) return false;
      this.dueLease = this.lease[h]!;
      this.dueId = this.id[h]!;
      this.head = (h + 1) & (this.at.length - 1);
      this.n -= 1;
      return true;
    }
    if (this.heap.size === 0 || this.heap.peekAt() > now) return false;
    this.dueLease = this.heap.peekLease();
    this.dueId = this.heap.peekId();
    this.heap.pop();
    return true;
  }

  /** Whether the run's head comes before the heap's top (ties by lease, as in the heap). */
  private runFirst(): boolean {
    if (this.n === 0) return false;
    if (this.heap.size === 0) return true;
    const at = this.at[this.head]!;
    const top = this.heap.peekAt();
    return at < top || (at === top && this.lease[this.head]! < this.heap.peekLease());
  }

  private grow(): void {
    this.at = growRing(this.at, this.head);
    this.lease = growRing(this.lease, this.head);
    this.id = growRing(this.id, this.head);
  }
}
