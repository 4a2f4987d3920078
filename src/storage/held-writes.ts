import type { Database } from './database.js';
import type { LmdbTxn } from './lmdb-binding.js';
import type { ChangeWriter } from './redo-log-file.js';

/**
 * Durability 'log' with logWritesPerCommit > 1: the native write txn that logged writes of the
 * synchronous API leave open (held-txn.ts), with what applying them again
 * takes: the write sequence the last one set, the handles opened in it (their log records are the
 * store's heldPayloads: there is one held txn at a time).
 */
export type HeldWrites = {
  native: LmdbTxn;
  writes: number;
  sequence: Uint8Array;
  readonly openedDatabases: Database[];
  /** A generous estimate of the pages the txn dirtied (dirtiedPages, summed). */
  pages: number;
  /**
   * Free pages of the map beyond its last committed page when the txn began (StoreEnv.freePages).
   * Measured once: while the txn is held this process holds LMDB's writer lock, so no commit (and
   * no resize) can change the last committed page or the map's size until it commits.
   */
  readonly roomPages: number;
};
/**
 * A held txn also commits once its writes' log records reach this many bytes, however few writes
 * that is. LMDB keeps every page a txn dirties in malloc'd memory until it commits, and keeps
 * those buffers on a free list afterwards (the largest txn's worth, for the life of the env), and
 * the held payloads stay in memory too: 400 writes of 100 KB items would hold ~80 MB twice over.
 */
export const HELD_MAX_PAYLOAD_BYTES = 4 * 2 ** 20;
/** Pages of the map kept free beyond twice a held txn's estimate before another write joins it. */
export const HELD_MARGIN_PAGES = 256;

/**
 * Whether a held txn whose writes dirtied an estimated `pages` may take another write, in a map
 * with `roomPages` free pages when it began: room for twice the estimate and HELD_MARGIN_PAGES, so
 * its commit does not find the map full.
 */
export function hasRoomToHold(roomPages: number, pages: number): boolean {
  return roomPages > 2 * pages + HELD_MARGIN_PAGES;
}

/**
 * The room (free pages beyond the map's last page) a held txn starts with, so it can take
 * `writesPerCommit` writes of a few changes each, or HELD_MAX_PAYLOAD_BYTES of records, before
 * hasRoomToHold makes it commit early: map, not disk (the file grows with the data).
 */
export function roomToHold(writesPerCommit: number): number {
  return Math.min(2 * (8 * writesPerCommit + Math.ceil(HELD_MAX_PAYLOAD_BYTES / 2048)) + HELD_MARGIN_PAGES, MAX_ROOM_TO_HOLD_PAGES);
}
/** Beyond this a held txn commits on hasRoomToHold before its count (a logWritesPerCommit in the tens of thousands). */
const MAX_ROOM_TO_HOLD_PAGES = 16_384;

/** A generous estimate of the pages a logged write dirtied: a leaf and its branches per change, and its values twice over. */
export function dirtiedPages(log: ChangeWriter): number {
  return 4 * log.count + Math.ceil(log.payload().length / 2048);
}
