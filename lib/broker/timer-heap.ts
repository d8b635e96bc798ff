// The broker's visibility and backoff timers: a binary min-heap of (at, lease, id) kept in three
// parallel Float64Arrays, ordered by time and then lease. One heap entry per hiding means one object
// per message per delivery in a heap of objects; here pushing and popping allocate nothing, which is
// most of the broker core's speed at hundreds of thousands of messages in flight (min-heap.ts is the
// generic one). Float64: times, leases and ids are whole numbers well inside 2^53.
export class TimerHeap {
  private at = new Float64Array(1024);
  private lease = new Float64Array(1024);
  private id = new Float64Array(1024);
  private n = 0;

  get size(): number {
    return this.n;
  }

  /** Time of the earliest entry; +Infinity when empty (nothing is ever due). */
  peekAt(): number {
    return this.n === 0 ? Infinity : this.at[0]!;
  }

  /** Lease and id of the earliest entry; valid while size > 0. */
  peekLease(): number {
    return this.lease[0]!;
  }

  peekId(): number {
    return this.id[0]!;
  }

  push(at: number, lease: number, id: number): void {
    if (this.n === this.at.length) this.grow();
    const ats = this.at;
    const leases = this.lease;
    const ids = this.id;
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pa = ats[parent]!;
      if (!(at < pa || (at === pa && lease < leases[parent]!))) break;
      this.set(i, pa, leases[parent]!, ids[parent]!);
      i = parent;
    }
    this.set(i, at, lease, id);
  }

  /** Drops the earliest entry (read it with peekAt/peekLease/peekId first). */
  pop(): void {
    const n = --this.n;
    if (n <= 0) {
      this.n = Math.max(n, 0);
      return;
    }
    const ats = this.at;
    const leases = this.lease;
    const ids = this.id;
    // Sift the former last entry down from the root.
    const at = ats[n]!;
    const lease = leases[n]!;
    const id = ids[n]!;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n) {
        const ra = ats[right]!;
        const la = ats[left]!;
        if (ra < la || (ra === la && leases[right]! < leases[left]!)) child = right;
      }
      const ca = ats[child]!;
      if (!(ca < at || (ca === at && leases[child]! < lease))) break;
      this.set(i, ca, leases[child]!, ids[child]!);
      i = child;
    }
    this.set(i, at, lease, id);
  }

  /** Entry `i` of the three arrays; small enough for the engine to inline in the sift loops. */
  private set(i: number, at: number, lease: number, id: number): void {
    this.at[i] = at;
    this.lease[i] = lease;
    this.id[i] = id;
  }

  private grow(): void {
    const size = this.at.length * 2;
    const at = new Float64Array(size);
    const lease = new Float64Array(size);
    const id = new Float64Array(size);
    at.set(this.at);
    lease.set(this.lease);
    id.set(this.id);
    this.at = at;
    this.lease = lease;
    this.id = id;
  }
}
