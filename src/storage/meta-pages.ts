/**
 * LMDB's two meta pages (pages 0 and 1 of data.mdb), read and written from JavaScript.
 *
 * Why: a commit made without flushes (MDB_NOSYNC) can leave, after a power cut, a meta page on
 * the disk whose tree pages never got there. A store that commits that way (the redo log's
 * checkpoints, docs/decisions/010-redo-log-durability.md) keeps a copy of the meta page of its
 * last flushed commit and, before the first open after the machine restarted, writes that copy
 * back into both slots: LMDB then opens at the checkpoint, whose pages a pinned read txn kept
 * from being reused.
 *
 * Layout (mdb.c 0.9, 64-bit hosts: pgno_t, txnid_t and size_t are 8 bytes): each meta page is a
 * 16-byte page header (mp_pgno, mp_pad, mp_flags = P_META, mp_lower/upper) followed by MDB_meta:
 * magic, version, mapping address, map size, the free and main databases' MDB_db (48 bytes each;
 * the free one's md_pad holds the page size), the last page number and the txn id. LMDB opens
 * with the slot whose txn id is higher (mdb_env_pick_meta), and commits txn n into slot n & 1.
 * Anything that does not match this layout is refused, never guessed at.
 */
import { fdatasyncSync, readSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { StorageError } from './storage-error.js';

/** LMDB's magic and the page flag of a meta page, as every LMDB file starts (data-file-layout.ts reads them too). */
export const MDB_MAGIC = 0xbeefc0de;
const MDB_DATA_VERSION = 1;
export const P_META = 0x08;
const PAGE_HEADER_BYTES = 16;
const META_OFFSET = PAGE_HEADER_BYTES;
const FLAGS_OFFSET = 10;
const PAGE_SIZE_OFFSET = META_OFFSET + 24; // mm_dbs[FREE_DBI].md_pad
const LAST_PAGE_OFFSET = META_OFFSET + 120;
const TXNID_OFFSET = META_OFFSET + 128;
/** The bytes of a meta page that LMDB reads: header and MDB_meta; the rest of the page is unused. */
export const META_BYTES = TXNID_OFFSET + 8;

export interface MetaPage {
  /** 0 or 1: where the page sits in data.mdb. */
  readonly slot: 0 | 1;
  readonly txnid: bigint;
  readonly pageSize: number;
  readonly lastPage: bigint;
  /** The page's first META_BYTES bytes, as read. */
  readonly bytes: Uint8Array;
}

/** Reads and checks both meta pages of the data file open at `fd` (page 0 holds the page size). */
export function readMetaPages(fd: number): [MetaPage, MetaPage] {
  const first = readMeta(fd, 0, 0);
  return [first, readMeta(fd, 1, first.pageSize)];
}

/** The meta page LMDB would open with: the one with the higher txn id (slot 0 on a tie, as mdb.c). */
export function newestMeta(pages: readonly [MetaPage, MetaPage]): MetaPage {
  return pages[1].txnid > pages[0].txnid ? pages[1] : pages[0];
}

/**
 * Writes `meta` (a page read by readMetaPages, from any slot) into BOTH slots of the data file open
 * at `fd` and flushes it, so LMDB opens at that commit whichever slot it picks. Only while no
 * process has the store open: LMDB's lock file caches the last txn id of an open environment.
 */
export function restoreMeta(fd: number, meta: MetaPage): void {
  for (const slot of [0, 1] as const) {
    const page = Buffer.from(meta.bytes);
    page.writeBigUInt64LE(BigInt(slot), 0); // mp_pgno
    const written = writeSync(fd, page, 0, page.length, slot * meta.pageSize);
    if (written !== page.length) throw new StorageError('IO', `restore meta page ${slot}: wrote ${written} of ${page.length} bytes`);
  }
  fdatasyncSync(fd);
  const back = readMetaPages(fd);
  if (back[0].txnid !== meta.txnid || back[1].txnid !== meta.txnid) throw new StorageError('IO', `restore meta pages: they read back as txn ${back[0].txnid} and ${back[1].txnid}, not ${meta.txnid}`);
}

/** A meta page as readMetaPages returns it, from bytes saved elsewhere (a checkpoint record). */
export function parseMeta(bytes: Uint8Array, slot: 0 | 1): MetaPage {
  if (endianness() !== 'LE') throw new StorageError('INVALID', 'meta pages are read on little-endian hosts only');
  if (bytes.length < META_BYTES) throw new StorageError('CORRUPT', `meta page ${slot}: ${bytes.length} bytes, need ${META_BYTES}`);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, META_BYTES);
  const flags = view.readUInt16LE(FLAGS_OFFSET);
  const magic = view.readUInt32LE(META_OFFSET);
  const version = view.readUInt32LE(META_OFFSET + 4);
  if ((flags & P_META) === 0 || magic !== MDB_MAGIC) throw new StorageError('CORRUPT', `meta page ${slot} is not an LMDB meta page (flags 0x${flags.toString(16)}, magic 0x${magic.toString(16)})`);
  if (version !== MDB_DATA_VERSION) throw new StorageError('CORRUPT', `meta page ${slot} has LMDB data version ${version}, this build reads ${MDB_DATA_VERSION}`);
  const pageSize = view.readUInt32LE(PAGE_SIZE_OFFSET);
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new StorageError('CORRUPT', `meta page ${slot} names a page size of ${pageSize}`);
  return { slot, txnid: view.readBigUInt64LE(TXNID_OFFSET), pageSize, lastPage: view.readBigUInt64LE(LAST_PAGE_OFFSET), bytes: Uint8Array.prototype.slice.call(view) };
}

function readMeta(fd: number, slot: 0 | 1, pageSize: number): MetaPage {
  const bytes = Buffer.alloc(META_BYTES);
  const read = readSync(fd, bytes, 0, META_BYTES, slot * pageSize);
  if (read !== META_BYTES) throw new StorageError('CORRUPT', `meta page ${slot}: read ${read} of ${META_BYTES} bytes`);
  return parseMeta(bytes, slot);
}
