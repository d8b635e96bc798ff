// Typed arrays that grow in place. On this kind of machine most of a large queue's cost is touching
// fresh memory (a page fault per 4 KiB), so the broker's per-message columns grow over resizable
// ArrayBuffers (address space reserved once, pages committed as the column grows, nothing copied)
// instead of doubling into new arrays, which touches every byte twice. Past the reservation a
// column moves to a larger one, once per eight-fold growth.

type Resizable = ArrayBuffer & { resize(byteLength: number): void; readonly maxByteLength: number };
type Column = Float64Array | Int32Array | Uint8Array;

/** Elements reserved up front per column (address space only, not memory). */
const RESERVED = 1 << 20;

const resizable = (byteLength: number, maxByteLength: number): Resizable =>
  new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => Resizable)(byteLength, { maxByteLength });

export const f64 = (length: number) => new Float64Array(resizable(length * 8, Math.max(length, RESERVED) * 8));
export const i32 = (length: number) => new Int32Array(resizable(length * 4, Math.max(length, RESERVED) * 4));
export const u8 = (length: number) => new Uint8Array(resizable(length, Math.max(length, RESERVED)));

/** The column at `length` elements: the same array when its reservation allows, else a larger copy. */
export function grow<T extends Column>(column: T, length: number): T {
  const buffer = column.buffer as Resizable;
  const bytes = length * column.BYTES_PER_ELEMENT;
  if (bytes <= buffer.maxByteLength) {
    buffer.resize(bytes);
    return column;
  }
  const Kind = column.constructor as new (b: ArrayBuffer) => T;
  const next = new Kind(resizable(bytes, buffer.maxByteLength * 8));
  next.set(column as never);
  return next;
}

/**
 * Doubles a ring buffer's column (`head` its oldest entry): the wrapped part, [0, head), moves behind
 * the old end, so the entries stay in order from head.
 */
export function growRing<T extends Column>(column: T, head: number): T {
  const old = column.length;
  const next = grow(column, old * 2);
  if (head > 0) next.copyWithin(old, 0, head);
  return next;
}
