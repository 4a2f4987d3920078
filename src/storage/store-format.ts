/**
 * The store format: one number per store saying which on-disk formats its values may use, so an
 * edgetable that does not know them refuses the store at open instead of misreading it.
 *
 *   key   = 0x00 "store-format"      ; in LMDB's main database, beside the write sequence
 *                                    ;   (write-sequence.ts): no database can take a NUL name
 *   value = version:u32be
 *   absent                           ; version 1
 *
 * Versions (each one's readers read every lower version as it is, without migration):
 *   1  every item value is item format 1 (every attribute name inline)
 *   2  base records may name attributes by codes of their table's name dictionary
 *      (codec/attribute-name-codes.ts, table/attribute-names.ts)
 *   3  base records and index entries may carry a text trailer and flags in their head
 *      (codec/item-record.ts); version 2 readers fail on them ("trailing bytes")
 *   4  tables of table format 3 may exist, whose base items are stored under their partition
 *      key's id (codec/item-key.ts placedKey, table/partition-ids.ts); version 3 readers would
 *      look for their items under hash-first keys and find none. Raised by CreateTable in the txn
 *      that records such a table. A process of an older build that already has the store open is
 *      not stopped on reads: it would take such a table from the catalog and read nothing from it
 *      (its first write is refused as for every version, see below)
 *
 * Beside it, from version 3 on:
 *   key   = 0x00 "text-values"       ; present once every value of every database its tables
 *   value = 0x01                     ;   declare `textValues` is a text value (storage/text-values.ts):
 *                                    ;   readers may then read those databases as text
 * Written by Store.markTextValues (table/text-records.ts, after migrating older records); absent,
 * readers read Buffers, which is right for every value.
 *
 * Who writes it: Store.raiseFormat, inside the write txn that first writes a value of the higher
 * format (the first dictionary code), so a committed value never has a lower marker than it needs.
 * The marker only rises; a store written only by older builds has none.
 *
 * Who checks it: Store.open (before anything is written; a store of a higher version than
 * STORE_FORMAT_VERSION is refused with StoreFormatError and left untouched), and every write txn
 * that follows another process's commit (the write sequence moved), so a process that has the
 * store open is stopped at its next write once a newer build raised the marker. Reads of a process
 * already open are not re-checked (a read costs two native calls; one more get each would show):
 * a future format must therefore be one that such readers fail on loudly, as version 1 readers
 * fail on version 2 codes ("map key is not a text string"), never misread.
 */
import { StorageError } from './storage-error.js';

/** The highest store format this build reads and writes. */
export const STORE_FORMAT_VERSION = 4;

/** The store format of stores whose base records may hold attribute-name codes. */
export const NAME_CODES_STORE_FORMAT = 2;

/** The store format of stores whose records may carry text trailers. */
export const TEXT_VALUES_STORE_FORMAT = 3;

/** The store format of stores that may hold tables of the partition-id layout (table format 3). */
export const PARTITION_ID_STORE_FORMAT = 4;

export const STORE_FORMAT_KEY: Uint8Array = Buffer.from('\0store-format', 'latin1');

export const TEXT_VALUES_KEY: Uint8Array = Buffer.from('\0text-values', 'latin1');

/** Thrown by Store.open (and a write after a newer build raised the format): nothing was written. */
export class StoreFormatError extends StorageError {
  constructor(
    readonly path: string,
    /** The store's format; NaN when its marker is unreadable. */
    readonly storeFormat: number,
    readonly supportedFormat: number = STORE_FORMAT_VERSION,
  ) {
    super('FORMAT', formatMessage(path, storeFormat, supportedFormat));
  }
}

/** The version a stored marker names (absent: 1); NaN for a marker that is not a u32. */
export function decodeStoreFormat(value: Uint8Array | undefined | null): number {
  if (value === undefined || value === null) return 1;
  if (value.length !== 4) return Number.NaN;
  return new DataView(value.buffer, value.byteOffset, 4).getUint32(0);
}

export function encodeStoreFormat(version: number): Uint8Array {
  const value = new Uint8Array(4);
  new DataView(value.buffer).setUint32(0, version);
  return value;
}

/** Whether this build can open a store of `version` (a NaN marker is refused). */
export function isSupportedStoreFormat(version: number): boolean {
  return version >= 1 && version <= STORE_FORMAT_VERSION;
}

function formatMessage(path: string, found: number, supported: number): string {
  const what = Number.isNaN(found) ? 'an unreadable store format marker' : `store format ${found}`;
  return (
    `store ${path} has ${what}; this edgetable reads store formats 1 to ${supported}. ` +
    'It was written by a newer edgetable: open it with that version or a later one (nothing was written). ' +
    'To move its data to this version, run `edgetable export <table>` with the newer version for each table and ' +
    '`edgetable import <table>` with this one into a new store.'
  );
}
