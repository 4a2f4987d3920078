/**
 * Key bytes are handed to node-lmdb, which reads them through the ArrayBuffer behind the view.
 * A small Uint8Array made by `new` or `slice` lives on V8's heap (64 bytes or less), and the first
 * native call on it moves it off-heap: a new backing store per key (measured ~300 ns per get or
 * put, more under GC pressure). So keys and cursor bounds are carved from a shared off-heap slab
 * instead, as Buffer's pool does: each one a view of its own bytes, never written again once
 * carved, which the caller owns. A key kept pins its slab until it is collected.
 */
export class KeySlab {
  /** The current slab: write a key at [used, used + room) after `with(room)`, then carve it. */
  bytes: Uint8Array;
  used = 0;

  constructor(private readonly slabBytes: number) {
    this.bytes = new Uint8Array(slabBytes);
  }

  /** The slab, with `room` bytes free from `used` (a new slab when it has not; at least `room` long). */
  with(room: number): Uint8Array {
    if (this.used + room > this.bytes.length) {
      this.bytes = new Uint8Array(Math.max(this.slabBytes, room));
      this.used = 0;
    }
    return this.bytes;
  }

  /** The bytes written at [used, end) as a view of their own; later keys go after them. */
  carve(end: number): Uint8Array {
    // The constructor, not subarray: subarray looks up a species constructor on every call.
    const out = new Uint8Array(this.bytes.buffer, this.used, end - this.used);
    this.used = end;
    return out;
  }
}
