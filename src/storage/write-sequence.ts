/**
 * The store-wide write sequence: one record in LMDB's main database that every write txn which
 * changes anything bumps as its last change (Store.runWrite and Store.writeAsync's batch), in
 * every process that opens the folder. A reader that sees the same sequence value twice therefore
 * knows that no commit happened in between, which is what makes an asynchronous commit's replay
 * safe (storage/batch-commit.ts): its changes were computed on the state of one sequence value
 * and are applied only if the store is still at that value.
 *
 * Format: key = 0x00 "write-sequence" (no database can take this name: database names never
 * contain NUL, see database.ts); value = u64 big-endian, the number of changing commits since
 * the record appeared (absent = 0). It lives in the main database because every commit that
 * changes a named database rewrites that database's record there anyway, so the bump costs no
 * extra page per commit.
 *
 * Every process writing a folder must bump it: an edgetable older than the sequence writing the
 * same folder as a newer one using db.promises could commit unseen between a recording and its
 * replay. Stores written only by older versions simply start without the record.
 */
export const WRITE_SEQUENCE_KEY: Uint8Array = Buffer.from('\0write-sequence', 'latin1');

/**
 * Whether a key of the main database is a record of the store (the write sequence, the store
 * format of store-format.ts: every such key starts with NUL) rather than a database's name.
 */
export function isWriteSequenceKey(key: Uint8Array): boolean {
  return key.length > 0 && key[0] === 0;
}

/**
 * The value that follows `current` (undefined, or not 8 bytes: the record is absent), wrapping to
 * zero past 2^64 - 1. Added byte by byte with carry: every changing commit comes here, and the
 * BigInt round trip cost more than the rest of the bump.
 */
export function nextWriteSequence(current: Uint8Array | undefined): Uint8Array {
  const next = Buffer.alloc(8);
  if (current === undefined || current.length !== 8) {
    next[7] = 1;
    return next;
  }
  let carry = 1;
  for (let i = 7; i >= 0; i--) {
    const sum = current[i]! + carry;
    next[i] = sum & 0xff;
    carry = sum >> 8;
  }
  return next;
}
