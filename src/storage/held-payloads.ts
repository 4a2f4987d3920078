/**
 * The log records' payloads of the writes a held txn holds (durability 'log' with
 * logWritesPerCommit > 1), kept to apply those writes again if the txn cannot commit.
 *
 * One buffer, reused from one held txn to the next, rather than a copy per write: a held txn lives
 * for hundreds of writes, so per-write copies outlived V8's young generation and, once their txn
 * committed, waited in the old generation for a full collection, their backing stores malloc'd
 * on the main thread meanwhile. On the sensor load at 400 writes per txn that was 15-19 MiB of
 * dead ArrayBuffers at a time (docs/decisions/013-held-writes.md).
 */
export class HeldPayloads {
  /** Empty until the first append: a store that never holds writes allocates nothing. */
  private bytes = new Uint8Array(0);
  /** Where each payload ends in `bytes`; the first starts at 0. */
  private readonly ends: number[] = [];

  /** `retainBytes`: the most capacity clear() keeps for the next txn; a larger buffer is dropped. */
  constructor(
    private readonly retainBytes: number,
    private readonly initialBytes = 64 * 1024,
  ) {}

  get byteLength(): number {
    return this.ends.length === 0 ? 0 : this.ends[this.ends.length - 1]!;
  }

  /** Copies payload in (the caller's buffer is reused for the next write). */
  append(payload: Uint8Array): void {
    const start = this.byteLength;
    const end = start + payload.length;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(end, 2 * this.bytes.length, this.initialBytes));
      grown.set(this.bytes.subarray(0, start));
      this.bytes = grown;
    }
    this.bytes.set(payload, start);
    this.ends.push(end);
  }

  /** Views of the payloads in the order appended; valid until the next append or clear. */
  *[Symbol.iterator](): IterableIterator<Uint8Array> {
    let start = 0;
    for (const end of this.ends) {
      yield this.bytes.subarray(start, end);
      start = end;
    }
  }

  /** Forgets every payload; keeps the buffer for the next txn unless it grew past retainBytes. */
  clear(): void {
    this.ends.length = 0;
    if (this.bytes.length > this.retainBytes) this.bytes = new Uint8Array(0);
  }
}
