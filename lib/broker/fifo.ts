// A FIFO queue with O(1) amortized push and shift: Array#shift is O(n) on large arrays, and the
// ready queue of a backed-up source can hold millions of messages.
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined; // let the message be collected
    this.head += 1;
    // Drop the consumed prefix once it is half the array, keeping memory proportional to size.
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
